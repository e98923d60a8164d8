// Lint runs inside `npm test`. The type-aware rules are few and chosen: with an asynchronous store, a
// call whose promise nobody awaits is a write that may not have happened yet, and tsc cannot see it.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

// Which package may import which (docs/architecture.md): the two services never import each other, the
// worker imports neither, and the shared packages (kit, protocol) import no other Conveyor package.
const packageBoundaries = {
  'packages/kit': ['^@conveyor/'],
  'packages/protocol': ['^@conveyor/'],
  'packages/pipeline': ['^@conveyor/(signin|worker|cli)(/|$)'],
  'packages/signin': ['^@conveyor/(pipeline|worker|cli)(/|$)'],
  'packages/worker': ['^@conveyor/(pipeline|signin|cli)(/|$)'],
  // The web package's tests drive the product through its CLI, HTTP and a browser, never its services' code.
  'packages/web': ['^@conveyor/(pipeline|signin|worker|cli)(/|$)'],
};

// The browser application calls only the documented HTTP APIs (its types are generated from the OpenAPI
// documents): no Conveyor package and nothing of Node's.
const browserApp = {
  files: ['packages/web/app/**/*.{ts,tsx}'],
  rules: {
    'no-restricted-imports': [
      'error',
      {
        patterns: [
          { regex: '^@conveyor/', message: 'the web interface calls the HTTP APIs (src/api/client.ts), never a package' },
          { regex: '^node:', message: 'the web interface runs in a browser' },
        ],
      },
    ],
  },
};

// Inside each service: http -> domain -> store. A relative import is matched on the folder it enters.
const into = (...folders) => `^(\\.\\./)+(${folders.join('|')})/`;
const layers = {
  'packages/pipeline/src/domain': [[into('http'), 'domain/ must not import http/: return data and throw the errors.ts catalogue']],
  'packages/pipeline/src/store': [
    [into('http'), 'store/ must not import http/'],
    ['^(\\.\\./)+domain/(?!rules/)', 'store/ may import only the pure rules of domain/rules/, which it applies inside its transactions'],
  ],
  'packages/pipeline/src/blobs': [[into('http', 'domain', 'store'), 'blobs/ keeps bytes only: it must not import http/, domain/ or store/']],
  'packages/pipeline/src/pipeline-file': [[into('http', 'domain', 'store', 'blobs', 'git'), 'pipeline-file/ is a pure compiler: it must not import the service around it']],
  'packages/signin/src/domain': [[into('http'), 'domain/ must not import http/: return data and throw the errors.ts catalogue']],
  'packages/signin/src/store': [
    [into('http'), 'store/ must not import http/'],
    ['^(\\.\\./)+domain/(?!rules/|types\\.js$)', 'store/ may import only domain/types.ts and the pure rules of domain/rules/'],
  ],
};

function restrictImports(directory) {
  const [, packageDirectory] = /^(packages\/[^/]+)/.exec(directory) ?? [];
  const boundaries = (packageBoundaries[packageDirectory] ?? []).map((regex) => ({ regex, message: 'see "Which package may import which" in docs/architecture.md' }));
  const layer = (layers[directory] ?? []).map(([regex, message]) => ({ regex, message }));
  // One object per folder holds both lists: a later no-restricted-imports replaces an earlier one.
  return ['error', { patterns: [...boundaries, ...layer] }];
}

// node:test's describe/it return promises the runner itself tracks.
const testRunnerCalls = { from: 'package', package: 'node:test', name: ['describe', 'it', 'test', 'suite', 'before', 'after', 'beforeEach', 'afterEach'] };

export default tseslint.config(
  { ignores: ['**/dist/**', '**/node_modules/**', 'data/**', '.bench/**', 'packages/web/build/**', '**/*.gen.ts', '.screenshots/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { process: 'readonly', console: 'readonly', setTimeout: 'readonly', clearTimeout: 'readonly', setInterval: 'readonly', clearInterval: 'readonly', Buffer: 'readonly', URL: 'readonly' } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
      'no-console': 'off',
      eqeqeq: ['error', 'always', { null: 'ignore' }],
    },
  },
  {
    files: ['packages/**/*.{ts,tsx}'],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      '@typescript-eslint/no-floating-promises': ['error', { allowForKnownSafeCalls: [testRunnerCalls] }],
      '@typescript-eslint/await-thenable': 'error',
    },
  },
  ...Object.keys(packageBoundaries).map((directory) => ({ files: [`${directory}/**/*.ts`], rules: { 'no-restricted-imports': restrictImports(directory) } })),
  browserApp,
  { files: ['packages/web/vite.config.js'], languageOptions: { sourceType: 'module' } },
  // Tests may reach across layers to set up and inspect; the layering is for the code they test.
  ...Object.keys(layers).map((directory) => ({
    files: [`${directory}/**/*.ts`],
    ignores: ['**/*.test.ts'],
    rules: { 'no-restricted-imports': restrictImports(directory) },
  })),
);
