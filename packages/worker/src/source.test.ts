import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { Readable } from 'node:stream';
import { createReadStream } from 'node:fs';
import { chmod, lstat, mkdir, mkdtemp, readFile, readdir, readlink, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { extractSource } from './source.js';
import { git, gitEnv, makeRepo } from './testing/git.js';

async function withTemp(body: (dir: string) => Promise<void>): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'conveyor-source-'));
  try {
    await body(dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

test('extracts a git archive of a real repository, keeping modes and inside links', async () => {
  await withTemp(async (dir) => {
    const repo = join(dir, 'repo');
    await makeRepo(repo, { 'src/a.txt': 'alpha\n', 'run.sh': '#!/bin/sh\necho hi\n' });
    await chmod(join(repo, 'run.sh'), 0o755);
    await symlink('src/a.txt', join(repo, 'link'));
    git(repo, 'add', '-A');
    git(repo, 'commit', '-q', '-m', 'more');
    // The whole archive first (it is small), so a failure can say what git produced.
    const archive = execFileSync('git', ['archive', '--format=tar.gz', 'HEAD'], { cwd: repo, env: gitEnv() });
    const out = join(dir, 'out');
    const { skipped } = await extractSource(Readable.from([archive]), out).catch((error: Error) => {
      throw new Error(`${error.message}; git produced ${archive.length} bytes starting ${archive.subarray(0, 4).toString('hex')}`);
    });
    assert.deepEqual(skipped, []);
    assert.equal(await readFile(join(out, 'src/a.txt'), 'utf8'), 'alpha\n');
    assert.equal((await lstat(join(out, 'run.sh'))).mode & 0o111, 0o111);
    assert.equal(await readlink(join(out, 'link')), 'src/a.txt');
  });
});

test('skips entries and links that leave the directory, and special files', async () => {
  await withTemp(async (dir) => {
    const tree = join(dir, 'tree');
    await mkdir(join(tree, 'sub'), { recursive: true });
    await writeFile(join(tree, 'escape.txt'), 'escaped\n');
    await writeFile(join(tree, 'absolute.txt'), 'absolute\n');
    await writeFile(join(tree, 'sub/ok.txt'), 'ok\n');
    await symlink('/etc', join(tree, 'abs-link'));
    await symlink('../../outside', join(tree, 'sub/up-link'));
    await symlink('../sub/ok.txt', join(tree, 'sub/fine-link'));
    execFileSync('mkfifo', [join(tree, 'fifo')]);
    const archivePath = join(dir, 'hostile.tar.gz');
    // GNU tar with -P keeps the rewritten names as they are, as a hostile server could send them.
    execFileSync('tar', [
      '-czPf', archivePath, '-C', tree,
      '--transform', 's,^escape.txt$,../escape.txt,',
      '--transform', `s,^absolute.txt$,${join(dir, 'absolute.txt')},`,
      'escape.txt', 'absolute.txt', 'sub', 'abs-link', 'fifo',
    ]);
    const out = join(dir, 'out');
    const { skipped } = await extractSource(createReadStream(archivePath), out);
    // Neither ../escape.txt nor the absolute path (both would land in `dir`) was written.
    assert.deepEqual((await readdir(dir)).sort(), ['hostile.tar.gz', 'out', 'tree']);
    assert.deepEqual((await readdir(out)).sort(), ['sub']);
    assert.deepEqual((await readdir(join(out, 'sub'))).sort(), ['fine-link', 'ok.txt']);
    assert.equal(skipped.length, 5, skipped.join('\n'));
    assert.ok(skipped.some((line) => line.startsWith('../escape.txt')));
    assert.ok(skipped.some((line) => line.includes('abs-link') && line.includes('absolute link target')));
    assert.ok(skipped.some((line) => line.includes('up-link') && line.includes('leaves')));
    assert.ok(skipped.some((line) => line.includes('fifo') && line.includes('FIFO')));
  });
});

test('fails on a corrupt archive instead of running a half-extracted tree', async () => {
  await withTemp(async (dir) => {
    const bad = join(dir, 'bad.tar.gz');
    await writeFile(bad, Buffer.from('this is not a gzip stream at all'));
    await assert.rejects(extractSource(createReadStream(bad), join(dir, 'out')));
  });
});
