import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { runCli } from './testing/run-cli.js';

// Compiled to packages/cli/dist/main.test.js.
const CLI_MANIFEST = new URL('../package.json', import.meta.url);
const README = new URL('../../../README.md', import.meta.url);

describe('conveyor front door', () => {
  it('--version prints the version of the package that ships the binary', async () => {
    const { version } = JSON.parse(readFileSync(CLI_MANIFEST, 'utf8')) as { version: string };
    const result = await runCli(['--version'], {});
    assert.equal(result.code, 0);
    assert.equal(result.stdout, `conveyor ${version}\n`);
  });

  it('with no command prints the usage on stderr and exits 2; --help prints it on stdout and exits 0', async () => {
    const bare = await runCli([], {});
    assert.equal(bare.code, 2);
    assert.equal(bare.stdout, '');
    assert.match(bare.stderr, /^Usage: conveyor <group>/);
    const help = await runCli(['--help'], {});
    assert.equal(help.code, 0);
    assert.match(help.stdout, /conveyor pipeline lint/);
  });

  it('bare `conveyor signin` prints its usage (stderr, exit 2) without calling it an unknown command', async () => {
    const bare = await runCli(['signin'], {});
    assert.equal(bare.code, 2);
    assert.match(bare.stderr, /^Usage: conveyor signin <command>/);
    assert.doesNotMatch(bare.stderr, /unknown/);
    const help = await runCli(['signin', '--help'], {});
    assert.equal(help.code, 0);
    assert.match(help.stdout, /^Usage: conveyor signin <command>/);
  });

  it('every group and admin without a command prints its usage on stderr and exits 2', async () => {
    for (const args of [['pipeline'], ['pipeline', 'admin'], ['signin', 'admin']]) {
      const result = await runCli(args, { PIPELINE_DATABASE_PATH: '/nonexistent/pipeline.db' });
      assert.equal(result.code, 2, args.join(' '));
      assert.equal(result.stdout, '', args.join(' '));
      assert.match(result.stderr, /^Usage: conveyor /, args.join(' '));
    }
  });

  it('`conveyor pipeline serve --help` lists every variable of the README table with its default', async () => {
    const readme = readFileSync(README, 'utf8');
    const rows = [...readme.matchAll(/^\| `(PIPELINE_[A-Z_]+)` \| ([^|]+) \|/gm)].map((match) => ({ name: match[1] ?? '', fallback: (match[2] ?? '').trim() }));
    assert.ok(rows.length >= 9, 'the README table is found');
    const help = await runCli(['pipeline', 'serve', '--help'], {});
    assert.equal(help.code, 0);
    for (const { name, fallback } of rows) {
      // `./data/pipeline.db` in the README, ./data/pipeline.db in the help.
      const shown = fallback.replace(/`/g, '');
      assert.match(help.stdout, new RegExp(`^  ${name} +${shown.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} `, 'm'), name);
    }
  });

  it('every relative link and image of the README and docs/ names a file of the repository', () => {
    const root = new URL('../../../', import.meta.url);
    const pages = ['README.md', ...readdirSync(new URL('docs/', root)).filter((name) => name.endsWith('.md')).map((name) => `docs/${name}`)];
    const broken: string[] = [];
    for (const page of pages) {
      const text = readFileSync(new URL(page, root), 'utf8');
      for (const [, target] of text.matchAll(/\]\(([^)\s#]+)(?:#[^)]*)?\)/g)) {
        if (target === undefined || /^[a-z]+:/.test(target)) continue;
        if (!existsSync(new URL(target, new URL(page, root)))) broken.push(`${page}: ${target}`);
      }
    }
    assert.deepEqual(broken, []);
  });
});
