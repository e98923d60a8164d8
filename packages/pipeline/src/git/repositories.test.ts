import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { mkdir, readFile, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { after, before, describe, it } from 'node:test';
import { pathToFileURL } from 'node:url';
import { createRepositories, type Repositories } from './repositories.js';
import { commitFiles, git, initRepository, makeTempDir } from './test-repos.js';

const MISSING_SHA = '3f786850e387550fdab836ed7e6dc881de23001b';

function extractTar(archive: string, into: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn('tar', ['-xzf', archive, '-C', into], { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve() : reject(new Error(`tar exited ${code}: ${stderr}`))));
  });
}

describe('repositories through the git CLI', () => {
  let temp: { path: string; remove: () => Promise<void> };
  let work: string;
  let bare: string;
  let first: string;
  const gitRuns: string[][] = [];
  let repos: Repositories;

  before(async () => {
    temp = await makeTempDir('git');
    work = await initRepository(join(temp.path, 'work'));
    first = await commitFiles(work, {
      '.pipeline.yml': 'tasks: {}\n',
      'src/main.c': 'int main(void) { return 0; }\n',
      'big.txt': 'x'.repeat(5000),
    });
    bare = join(temp.path, 'origin.git');
    await git(temp.path, ['clone', '--quiet', '--bare', work, bare]);
    repos = createRepositories({ dataPath: join(temp.path, 'data'), fetchTimeoutMs: 10_000, observeGit: (args) => gitRuns.push([...args]) });
  });
  after(async () => {
    await repos.close();
    await temp.remove();
  });

  it('finds commits in a non-bare and a bare local repository', async () => {
    assert.equal(await repos.ensureCommit(work, first), true);
    assert.equal(await repos.ensureCommit(bare, first), true);
    assert.equal(await repos.ensureCommit(work, MISSING_SHA), false);
    assert.equal(await repos.ensureCommit(bare, MISSING_SHA), false);
  });

  it('never fetches for a local path', async () => {
    gitRuns.length = 0;
    assert.equal(await repos.ensureCommit(bare, MISSING_SHA), false);
    assert.ok(gitRuns.every((args) => !args.includes('fetch') && !args.includes('clone')));
  });

  it('refuses a malformed sha without running git', async () => {
    gitRuns.length = 0;
    for (const sha of ['', 'main', first.slice(0, 39), first.toUpperCase(), `${first}0`, `-${first.slice(1)}`]) {
      assert.equal(await repos.ensureCommit(bare, sha), false, sha);
    }
    assert.deepEqual(gitRuns, []);
  });

  it('reads a file at a commit', async () => {
    const file = await repos.readFile(bare, first, '.pipeline.yml', 1024);
    assert.deepEqual(file, { kind: 'ok', content: Buffer.from('tasks: {}\n') });
    const nested = await repos.readFile(work, first, 'src/main.c', 1024);
    assert.equal(nested.kind === 'ok' && nested.content.toString(), 'int main(void) { return 0; }\n');
  });

  it('refuses a file above the limit without reading it', async () => {
    // The size comes from an `info` request; that the bytes are never buffered is in cat-file.test.ts.
    assert.deepEqual(await repos.readFile(bare, first, 'big.txt', 4999), { kind: 'too-large', size: 5000 });
    const exact = await repos.readFile(bare, first, 'big.txt', 5000);
    assert.equal(exact.kind === 'ok' && exact.content.length, 5000);
  });

  it('answers missing for an absent path, a directory, an unknown commit and odd paths', async () => {
    for (const path of ['nope.yml', 'src', 'src/', './.pipeline.yml', '../x', '/.pipeline.yml', '']) {
      assert.deepEqual(await repos.readFile(bare, first, path, 1024), { kind: 'missing' }, path);
    }
    assert.deepEqual(await repos.readFile(bare, MISSING_SHA, '.pipeline.yml', 1024), { kind: 'missing' });
  });

  it('streams an archive that extracts to the committed files', async () => {
    const tarball = join(temp.path, 'source.tar.gz');
    await pipeline(repos.archive(bare, first), createWriteStream(tarball));
    const into = join(temp.path, 'extracted');
    await mkdir(into);
    await extractTar(tarball, into);
    assert.equal(await readFile(join(into, 'src/main.c'), 'utf8'), 'int main(void) { return 0; }\n');
    assert.equal(await readFile(join(into, '.pipeline.yml'), 'utf8'), 'tasks: {}\n');
  });

  it('errors the archive stream for an unknown or malformed sha', async () => {
    await assert.rejects(pipeline(repos.archive(bare, MISSING_SHA), createWriteStream(join(temp.path, 'bad.tar.gz'))), /git archive .*failed/);
    await assert.rejects(pipeline(repos.archive(bare, 'HEAD'), createWriteStream(join(temp.path, 'bad2.tar.gz'))), /not a full commit id/);
  });

  it('mirrors a file:// URL and fetches again when a new commit is pushed', async () => {
    const url = pathToFileURL(bare).href;
    gitRuns.length = 0;
    assert.equal(await repos.ensureCommit(url, first), true);
    assert.equal(gitRuns.filter((args) => args.includes('clone')).length, 1);
    const mirrors = await readdir(join(temp.path, 'data', 'repos'));
    assert.equal(mirrors.length, 1);
    assert.match(mirrors[0] ?? '', /^[0-9a-f]{64}\.git$/);

    const second = await commitFiles(work, { '.pipeline.yml': 'tasks: { build: {} }\n' }, 'second');
    await git(work, ['push', '--quiet', bare, 'main']);
    gitRuns.length = 0;
    assert.equal(await repos.ensureCommit(url, second), true);
    assert.equal(gitRuns.filter((args) => args.includes('fetch')).length, 1);
    const file = await repos.readFile(url, second, '.pipeline.yml', 1024);
    assert.equal(file.kind === 'ok' && file.content.toString(), 'tasks: { build: {} }\n');

    gitRuns.length = 0;
    assert.equal(await repos.ensureCommit(url, first), true, 'a present commit needs no fetch');
    assert.deepEqual(gitRuns.filter((args) => args.includes('fetch')), []);
    assert.equal(await repos.ensureCommit(url, MISSING_SHA), false);
  });

  it('answers missing and errors for a URL never mirrored', async () => {
    const url = pathToFileURL(join(temp.path, 'never.git')).href;
    assert.deepEqual(await repos.readFile(url, first, '.pipeline.yml', 1024), { kind: 'missing' });
    await assert.rejects(pipeline(repos.archive(url, first), createWriteStream(join(temp.path, 'never.tar.gz'))));
  });
});
