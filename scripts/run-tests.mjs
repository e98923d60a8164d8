#!/usr/bin/env node
// Runs every compiled `*.test.js` under packages/*/dist with node's built-in test runner.
// Node 20's runner takes no globs, so the files are listed here. `npm test` builds first.
// Usage: node scripts/run-tests.mjs [package-or-path-filter ...]
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';

function listTests(dir) {
  const found = [];
  for (const entry of readdirSync(dir)) {
    const full = join(dir, entry);
    if (statSync(full).isDirectory()) found.push(...listTests(full));
    else if (entry.endsWith('.test.js')) found.push(full);
  }
  return found;
}

const filters = process.argv.slice(2);
const files = readdirSync('packages')
  .map((pkg) => join('packages', pkg, 'dist'))
  .filter((dist) => { try { return statSync(dist).isDirectory(); } catch { return false; } })
  .flatMap(listTests)
  .filter((file) => filters.length === 0 || filters.some((f) => file.includes(f)))
  .sort();

if (files.length === 0) {
  console.error('no test files found; run `npm run build` first');
  process.exit(1);
}
const result = spawnSync(process.execPath, ['--enable-source-maps', '--test', '--test-concurrency=2', ...files], { stdio: 'inherit' });
process.exit(result.status ?? 1);
