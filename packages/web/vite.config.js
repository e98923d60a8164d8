// Vite bundles the browser application in app/ into build/, which `conveyor serve` serves. Preact's JSX
// goes through esbuild directly: no framework plugin (and no Babel) is needed for it.
import { defineConfig } from 'vite';

export default defineConfig({
  root: 'app',
  base: '/',
  esbuild: { jsx: 'automatic', jsxImportSource: 'preact' },
  build: {
    outDir: '../build',
    emptyOutDir: true,
    // Hashed file names under /assets/ are served with a year-long immutable cache.
    assetsDir: 'assets',
    target: 'es2022',
    sourcemap: true,
    reportCompressedSize: false,
  },
});
