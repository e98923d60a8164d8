import assert from 'node:assert/strict';
import { readdir } from 'node:fs/promises';
import { createServer, type Socket } from 'node:net';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { pathToFileURL } from 'node:url';
import { createRepositories } from './repositories.js';
import { commitFiles, git, initRepository, makeTempDir } from './test-repos.js';

describe('mirror fetches', () => {
  let temp: { path: string; remove: () => Promise<void> };

  before(async () => {
    temp = await makeTempDir('fetch');
  });
  after(() => temp.remove());

  it('shares one fetch between concurrent requests for the same repository', async () => {
    const work = await initRepository(join(temp.path, 'work'));
    const first = await commitFiles(work, { 'a.txt': '1\n' });
    const origin = join(temp.path, 'origin.git');
    await git(temp.path, ['clone', '--quiet', '--bare', work, origin]);
    const runs: string[][] = [];
    const repos = createRepositories({ dataPath: join(temp.path, 'data'), fetchTimeoutMs: 10_000, observeGit: (args) => runs.push([...args]) });
    const url = pathToFileURL(origin).href;

    const cloned = await Promise.all([1, 2, 3].map(() => repos.ensureCommit(url, first)));
    assert.deepEqual(cloned, [true, true, true]);
    assert.equal(runs.filter((args) => args.includes('clone')).length, 1);

    const second = await commitFiles(work, { 'a.txt': '2\n' });
    await git(work, ['push', '--quiet', origin, 'main']);
    runs.length = 0;
    const fetched = await Promise.all([1, 2, 3, 4].map(() => repos.ensureCommit(url, second)));
    assert.deepEqual(fetched, [true, true, true, true]);
    assert.equal(runs.filter((args) => args.includes('fetch')).length, 1);
  });

  it('kills a fetch over the time limit and leaves no mirror behind', async () => {
    // Accepts the connection and never answers, so git waits until it is killed.
    const sockets = new Set<Socket>();
    const server = createServer((socket) => {
      sockets.add(socket);
      socket.on('error', () => undefined);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const address = server.address();
    assert.ok(address !== null && typeof address === 'object');
    try {
      const dataPath = join(temp.path, 'silent-data');
      const repos = createRepositories({ dataPath, fetchTimeoutMs: 400 });
      const started = Date.now();
      const found = await repos.ensureCommit(`http://127.0.0.1:${address.port}/repo.git`, '3f786850e387550fdab836ed7e6dc881de23001b');
      const elapsed = Date.now() - started;
      assert.equal(found, false);
      assert.ok(elapsed >= 400 && elapsed < 3000, `took ${elapsed} ms`);
      assert.ok(sockets.size >= 1, 'git did connect');
      assert.deepEqual(await readdir(join(dataPath, 'repos')), []);
    } finally {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
