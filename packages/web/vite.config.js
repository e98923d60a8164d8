// Vite bundles the browser application in app/ into build/, which `conveyor serve` serves. Preact's JSX
// goes through esbuild directly: no framework plugin (and no Babel) is needed for it.
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import { defineConfig } from 'vite';

const COMPRESSIBLE = /\.(js|css|html|svg|json)$/;

/**
 * Writes `.br` and `.gz` beside every text asset once the bundle is on disk, so the server sends the
 * smallest encoding the browser accepts without compressing on each request (@fastify/static's preCompressed).
 */
function precompress() {
  let outDir = '';
  return {
    name: 'conveyor-precompress',
    apply: 'build',
    configResolved(config) {
      outDir = resolve(config.root, config.build.outDir);
    },
    closeBundle() {
      const visit = (directory) => {
        for (const entry of readdirSync(directory)) {
          const path = join(directory, entry);
          if (statSync(path).isDirectory()) visit(path);
          else if (COMPRESSIBLE.test(entry)) {
            const content = readFileSync(path);
            writeFileSync(`${path}.gz`, gzipSync(content, { level: 9 }));
            writeFileSync(`${path}.br`, brotliCompressSync(content, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }));
          }
        }
      };
      visit(outDir);
    },
  };
}

export default defineConfig({
  root: 'app',
  base: '/',
  esbuild: { jsx: 'automatic', jsxImportSource: 'preact' },
  plugins: [precompress()],
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
