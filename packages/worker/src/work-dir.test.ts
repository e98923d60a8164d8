import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { chmod, chown, mkdir, mkdtemp, readdir, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { prepareWorkDir, taskDirectoryName } from './work-dir.js';

async function withDir(body: (dir: string) => Promise<void>): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'conveyor-workdir-'));
  try {
    await body(dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

test('creates a missing work directory 0700 and removes the task directories an earlier run left, nothing else', async () => {
  await withDir(async (dir) => {
    const work = join(dir, 'a', 'work');
    assert.deepEqual(await prepareWorkDir(work, { runAs: false }), { removed: 0 });
    assert.equal((await stat(work)).mode & 0o777, 0o700);
    const leftover = join(work, taskDirectoryName('01J9ZQ-task/id', 3));
    await mkdir(join(leftover, 'script'), { recursive: true });
    await writeFile(join(leftover, 'script', 'script.sh'), 'export SECRET=x\n');
    await writeFile(join(work, 'worker.token'), 'not a task directory\n');
    await mkdir(join(work, 'task-notes'));
    assert.deepEqual(await prepareWorkDir(work, { runAs: false }), { removed: 1 });
    assert.deepEqual((await readdir(work)).sort(), ['task-notes', 'worker.token']);
  });
});

test('refuses a work directory others can write, a link, or one that is not a directory, and changes nothing', async () => {
  await withDir(async (dir) => {
    const open = join(dir, 'open');
    await mkdir(open);
    await chmod(open, 0o777);
    const leftover = join(open, taskDirectoryName('t', 1));
    await mkdir(leftover);
    await assert.rejects(prepareWorkDir(open, { runAs: false }), /can be written by other users \(mode 777\); run chmod go-w/);
    await chmod(open, 0o730);
    await assert.rejects(prepareWorkDir(open, { runAs: false }), /can be written by other users \(mode 730\)/);
    assert.deepEqual(await readdir(open), [leftover.split('/').pop()]);
    await symlink(join(dir, 'open'), join(dir, 'link'));
    await assert.rejects(prepareWorkDir(join(dir, 'link'), { runAs: false }), /is a symbolic link/);
    await writeFile(join(dir, 'file'), 'x');
    await assert.rejects(prepareWorkDir(join(dir, 'file'), { runAs: false }), /cannot be created \(EEXIST\)/);
  });
});

test('refuses a work directory another user owns', { skip: process.getuid?.() !== 0 && 'needs root to give a directory away' }, async () => {
  await withDir(async (dir) => {
    const theirs = join(dir, 'theirs');
    await mkdir(theirs, { mode: 0o700 });
    const nobody = Number(execFileSync('id', ['-u', 'nobody'], { encoding: 'utf8' }).trim());
    await chown(theirs, nobody, nobody);
    await assert.rejects(prepareWorkDir(theirs, { runAs: false }), new RegExp(`belongs to uid ${nobody}, not to this worker's user \\(uid 0\\)`));
  });
});

test('with --run-as, others may only search the work directory, never list or write it', async () => {
  await withDir(async (dir) => {
    const work = join(dir, 'work');
    await prepareWorkDir(work, { runAs: true });
    assert.equal((await stat(work)).mode & 0o777, 0o711);
  });
});
