import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { hostBaseEnv, ShellExecutor } from './shell.js';
import { prepareRun } from './testing-spec.js';

const executor = new ShellExecutor({ killGraceMs: 1000, baseEnv: hostBaseEnv({ ...process.env, CONVEYOR_WORKER_TOKEN: 'must-not-leak' }) });

/** Running, as opposed to gone or a zombie (which a container's init may never reap). */
function isAlive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return false;
  }
}

test('runs the lines in order in one shell, echoing each, stopping at the first failure', async () => {
  const run = await prepareRun(
    ['echo "greeting=$GREETING"', 'cd sub 2>/dev/null || echo "pwd=$(pwd)"', 'echo to-stderr >&2; echo to-stdout', 'VAR=kept', 'echo "$VAR ${CONVEYOR_WORKER_TOKEN:-no-token}"; cat input.txt', 'false', 'echo never'],
    { GREETING: "it's here" },
  );
  try {
    const result = await executor.run(run.spec, new AbortController().signal);
    assert.equal(result.exitCode, 1);
    assert.equal(
      run.output(),
      [
        '$ echo "greeting=$GREETING"', "greeting=it's here",
        '$ cd sub 2>/dev/null || echo "pwd=$(pwd)"', `pwd=${run.spec.hostDir}`,
        '$ echo to-stderr >&2; echo to-stdout', 'to-stderr', 'to-stdout',
        '$ VAR=kept',
        '$ echo "$VAR ${CONVEYOR_WORKER_TOKEN:-no-token}"; cat input.txt', 'kept no-token', 'from the source tree',
        '$ false', '',
      ].join('\n'),
    );
  } finally {
    await run.dispose();
  }
});

test('reports the exit status of the failing line', async () => {
  const run = await prepareRun(['exit 7'], {});
  try {
    assert.equal((await executor.run(run.spec, new AbortController().signal)).exitCode, 7);
  } finally {
    await run.dispose();
  }
});

test('abort ends the whole process tree, including background children', async () => {
  const run = await prepareRun(['sleep 300 & echo $! > pids', '(sleep 300; echo late) & echo $! >> pids', 'echo started', 'sleep 300'], {});
  try {
    const controller = new AbortController();
    const started = Date.now();
    const finished = executor.run(run.spec, controller.signal);
    while (!run.output().includes('started')) await new Promise((r) => setTimeout(r, 20));
    const pids = (await readFile(join(run.spec.hostDir, 'pids'), 'utf8')).trim().split('\n').map(Number);
    assert.ok(pids.every(isAlive));
    controller.abort();
    assert.equal((await finished).exitCode, null);
    assert.ok(Date.now() - started < 10_000);
    await new Promise((r) => setTimeout(r, 100));
    assert.deepEqual(pids.filter(isAlive), []);
  } finally {
    await run.dispose();
  }
});

test('a background child left running does not outlive the task or hold its log open', async () => {
  const run = await prepareRun(['sleep 300 & echo $! > pid', 'echo done'], {});
  try {
    const started = Date.now();
    assert.equal((await executor.run(run.spec, new AbortController().signal)).exitCode, 0);
    assert.ok(Date.now() - started < 5_000);
    const pid = Number((await readFile(join(run.spec.hostDir, 'pid'), 'utf8')).trim());
    await new Promise((r) => setTimeout(r, 100));
    assert.equal(isAlive(pid), false);
  } finally {
    await run.dispose();
  }
});

/** Prints every ancestor of the script up to pid 1 as `ancestor <pid>`. */
const WALK_ANCESTORS = `p=$PPID; while [ "$p" -gt 1 ]; do echo "ancestor $p"; p=$(sed 's/.*) //' /proc/$p/stat | cut -d' ' -f2); done`;

test('the script does not run below the worker: no process of the worker is among its ancestors', async () => {
  const run = await prepareRun([WALK_ANCESTORS], {});
  try {
    assert.equal((await executor.run(run.spec, new AbortController().signal)).exitCode, 0, run.output());
    const ancestors = [...run.output().matchAll(/^ancestor (\d+)$/gm)].map((match) => Number(match[1]));
    assert.ok(ancestors.length >= 1, run.output());
    assert.ok(!ancestors.includes(process.pid), `the worker (${process.pid}) is an ancestor: ${ancestors.join(' ')}`);
  } finally {
    await run.dispose();
  }
});
