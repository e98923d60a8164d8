import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { pathToFileURL } from 'node:url';
import { createCatFilePool, type CatFilePool } from './cat-file.js';
import { ceilingFor } from './git-process.js';
import { createRepositories, type Repositories } from './repositories.js';
import { commitFiles, git, initRepository, makeTempDir } from './test-repos.js';

const MISSING_SHA = '3f786850e387550fdab836ed7e6dc881de23001b';
/** Every byte value, and lines that look like cat-file headers, so a parser that scans the content for them fails. */
const BINARY = Buffer.concat([
  Buffer.from(Array.from({ length: 256 }, (_, index) => index)),
  Buffer.from(`\n${MISSING_SHA} blob 12\n${MISSING_SHA} missing\n\n`),
  Buffer.alloc(70_000, 0x0a),
]);
const BIG = 3 * 1024 * 1024;

const isCatFile = (args: readonly string[]): boolean => args.includes('cat-file');

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function waitFor(condition: () => boolean, what: string): Promise<void> {
  for (let waited = 0; waited < 10_000; waited += 20) {
    if (condition()) return;
    await sleep(20);
  }
  assert.fail(`timed out waiting for ${what}`);
}

describe('git cat-file, one long-lived process per repository', () => {
  let temp: { path: string; remove: () => Promise<void> };
  let work: string;
  let bare: string;
  let first: string;
  let tree: string;
  const runs: string[][] = [];
  let repos: Repositories;

  before(async () => {
    temp = await makeTempDir('catfile');
    work = await initRepository(join(temp.path, 'work'));
    first = await commitFiles(work, {
      '.pipeline.yml': 'tasks: {}\n',
      'bin/data.bin': BINARY,
      'big.txt': 'y'.repeat(BIG),
      'dir with space/file "q".txt': 'quoted\n',
    });
    tree = await git(work, ['rev-parse', `${first}^{tree}`]);
    bare = join(temp.path, 'origin.git');
    await git(temp.path, ['clone', '--quiet', '--bare', work, bare]);
    repos = createRepositories({ dataPath: join(temp.path, 'data'), fetchTimeoutMs: 10_000, observeGit: (args) => runs.push([...args]) });
  });
  after(async () => {
    await repos.close();
    await temp.remove();
  });

  it('reads files at a commit, binary content byte for byte', async () => {
    assert.deepEqual(await repos.readFile(bare, first, '.pipeline.yml', 1024), { kind: 'ok', content: Buffer.from('tasks: {}\n') });
    const binary = await repos.readFile(bare, first, 'bin/data.bin', BINARY.length);
    assert.equal(binary.kind, 'ok');
    assert.ok(binary.kind === 'ok' && binary.content.equals(BINARY), 'the binary file comes back unchanged');
    const spaced = await repos.readFile(bare, first, 'dir with space/file "q".txt', 1024);
    assert.equal(spaced.kind === 'ok' && spaced.content.toString(), 'quoted\n');
  });

  it('answers missing for a missing path, a missing commit, a directory and a tree id', async () => {
    assert.deepEqual(await repos.readFile(bare, first, 'nope.yml', 1024), { kind: 'missing' });
    assert.deepEqual(await repos.readFile(bare, MISSING_SHA, '.pipeline.yml', 1024), { kind: 'missing' });
    assert.deepEqual(await repos.readFile(bare, first, 'bin', 1024), { kind: 'missing' });
    assert.deepEqual(await repos.readFile(bare, tree, '.pipeline.yml', 1024), { kind: 'missing' }, 'a tree id is not a commit');
    assert.equal(await repos.ensureCommit(bare, first), true);
    assert.equal(await repos.ensureCommit(bare, MISSING_SHA), false);
    assert.equal(await repos.ensureCommit(bare, tree), false, 'a tree id is not a commit');
    const blob = await git(work, ['rev-parse', `${first}:.pipeline.yml`]);
    assert.equal(await repos.ensureCommit(bare, blob), false, 'a blob id is not a commit');
    // The process still answers in step after all those misses.
    assert.deepEqual(await repos.readFile(bare, first, '.pipeline.yml', 1024), { kind: 'ok', content: Buffer.from('tasks: {}\n') });
  });

  it('refuses a file over the limit by its size, and stays in step', async () => {
    assert.deepEqual(await repos.readFile(bare, first, 'big.txt', BIG - 1), { kind: 'too-large', size: BIG });
    const exact = await repos.readFile(bare, first, 'big.txt', BIG);
    assert.equal(exact.kind === 'ok' && exact.content.length, BIG);
  });

  it('answers 50 concurrent job creations with one process', async () => {
    const other = join(temp.path, 'other.git');
    await git(temp.path, ['clone', '--quiet', '--bare', work, other]);
    runs.length = 0;
    const answers = await Promise.all(
      Array.from({ length: 50 }, async (_, index) => {
        assert.equal(await repos.ensureCommit(other, first), true);
        return repos.readFile(other, first, index % 2 === 0 ? '.pipeline.yml' : 'bin/data.bin', BINARY.length);
      }),
    );
    answers.forEach((answer, index) => {
      assert.ok(answer.kind === 'ok' && answer.content.equals(index % 2 === 0 ? Buffer.from('tasks: {}\n') : BINARY), `answer ${index}`);
    });
    assert.equal(runs.filter(isCatFile).length, 1, 'one git cat-file process for the repository');
  });

  it('sees commits pushed after the process started, loose and packed', async () => {
    const pushed = join(temp.path, 'pushed.git');
    await git(temp.path, ['clone', '--quiet', '--bare', work, pushed]);
    assert.equal(await repos.ensureCommit(pushed, first), true);
    runs.length = 0;
    const loose = await commitFiles(work, { '.pipeline.yml': 'tasks: { a: {} }\n' }, 'loose');
    await git(work, ['push', '--quiet', pushed, 'main']);
    // unpackLimit 1: the receiving side keeps the pack instead of exploding it into loose objects.
    const packed = await commitFiles(work, { '.pipeline.yml': 'tasks: { b: {} }\n' }, 'packed');
    await git(pushed, ['config', 'receive.unpackLimit', '1']);
    await git(work, ['push', '--quiet', pushed, 'main']);
    for (const [sha, text] of [
      [loose, 'tasks: { a: {} }\n'],
      [packed, 'tasks: { b: {} }\n'],
    ] as const) {
      assert.equal(await repos.ensureCommit(pushed, sha), true);
      assert.deepEqual(await repos.readFile(pushed, sha, '.pipeline.yml', 1024), { kind: 'ok', content: Buffer.from(text) });
    }
    assert.equal(runs.filter(isCatFile).length, 0, 'the running process answered');
  });

  it('fetches a URL repository, then reads the new commit', async () => {
    const origin = join(temp.path, 'fetched.git');
    await git(temp.path, ['clone', '--quiet', '--bare', work, origin]);
    const url = pathToFileURL(origin).href;
    const head = await git(origin, ['rev-parse', 'main']);
    assert.equal(await repos.ensureCommit(url, head), true);
    const later = await commitFiles(work, { '.pipeline.yml': 'tasks: { c: {} }\n' }, 'later');
    await git(work, ['push', '--quiet', origin, 'main']);
    assert.deepEqual(await repos.readFile(url, later, '.pipeline.yml', 1024), { kind: 'missing' }, 'not fetched yet');
    assert.equal(await repos.ensureCommit(url, later), true);
    assert.deepEqual(await repos.readFile(url, later, '.pipeline.yml', 1024), { kind: 'ok', content: Buffer.from('tasks: { c: {} }\n') });
  });
});

describe('the cat-file pool', () => {
  let temp: { path: string; remove: () => Promise<void> };
  let repo: string;
  let first: string;
  let bigOid: string;
  const runs: string[][] = [];
  const pools: CatFilePool[] = [];
  const makePool = (idleMs?: number): CatFilePool => {
    const pool = createCatFilePool({ context: { observe: (args) => runs.push([...args]) }, ceilingOf: ceilingFor, idleMs });
    pools.push(pool);
    return pool;
  };

  before(async () => {
    temp = await makeTempDir('catfile-pool');
    repo = await initRepository(join(temp.path, 'repo'));
    first = await commitFiles(repo, { 'a.txt': 'a\n', 'big.bin': Buffer.alloc(BIG, 0x0a) });
    bigOid = await git(repo, ['rev-parse', `${first}:big.bin`]);
  });
  after(async () => {
    await Promise.all(pools.map((pool) => pool.close()));
    await temp.remove();
  });

  it('skips the bytes of an object over the limit and answers the next request correctly', async () => {
    const pool = makePool();
    const [skipped, next] = await Promise.all([pool.contents(repo, bigOid, 100), pool.contents(repo, `${first}:a.txt`, 100)]);
    assert.deepEqual(skipped, { oid: bigOid, type: 'blob', size: BIG, content: null });
    assert.equal(next?.content?.toString(), 'a\n');
    assert.equal(await pool.contents(repo, `${first}:nope`, 100), null);
  });

  it('fails the pending requests of a killed process with a clear error, and starts a new one for the next', async () => {
    const pool = makePool();
    assert.equal((await pool.info(repo, first))?.type, 'commit');
    const [pid] = pool.processIds();
    assert.ok(pid !== undefined);
    // Each answer is 3 MiB and the pipe holds far less, so none can be complete when the kill lands.
    const pending = Array.from({ length: 5 }, () => pool.contents(repo, bigOid, BIG));
    process.kill(pid, 'SIGKILL');
    const outcomes = await Promise.allSettled(pending);
    for (const outcome of outcomes) {
      assert.equal(outcome.status, 'rejected');
      assert.match(String(outcome.status === 'rejected' ? outcome.reason : ''), /git cat-file in .*repo stopped \(signal SIGKILL\)/);
    }
    runs.length = 0;
    assert.equal((await pool.info(repo, first))?.type, 'commit');
    assert.equal(runs.filter(isCatFile).length, 1, 'a new process was started');
    assert.notEqual(pool.processIds()[0], pid);
  });

  it('fails clearly for a directory that is not a repository, and recovers once it is one', async () => {
    const pool = makePool();
    const later = join(temp.path, 'later');
    await assert.rejects(pool.info(later, first), /git cat-file in .*later stopped \(exit 128\)/);
    await git(temp.path, ['clone', '--quiet', '--bare', repo, later]);
    assert.equal((await pool.info(later, first))?.type, 'commit');
  });

  it('closes an idle process after the idle time and starts another when asked again', async () => {
    const pool = makePool(100);
    assert.equal((await pool.info(repo, first))?.type, 'commit');
    const [pid] = pool.processIds();
    assert.ok(pid !== undefined);
    await waitFor(() => pool.processIds().length === 0 && !isAlive(pid), 'the idle process to exit');
    assert.equal((await pool.info(repo, first))?.type, 'commit');
    assert.equal(pool.processIds().length, 1);
  });

  it('keeps a process in use past the idle time', async () => {
    const pool = makePool(50);
    runs.length = 0;
    const started = Date.now();
    while (Date.now() - started < 400) assert.equal((await pool.info(repo, first))?.type, 'commit');
    assert.equal(runs.filter(isCatFile).length, 1);
  });

  it('ends every process on close, and refuses requests after it', async () => {
    const pool = makePool();
    const other = join(temp.path, 'other');
    await git(temp.path, ['clone', '--quiet', '--bare', repo, other]);
    await Promise.all([pool.info(repo, first), pool.info(other, first)]);
    const pids = pool.processIds();
    assert.equal(pids.length, 2);
    await pool.close();
    assert.deepEqual(pool.processIds(), []);
    for (const pid of pids) assert.equal(isAlive(pid), false);
    await assert.rejects(pool.info(repo, first), /the repositories are closed/);
  });
});
