import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { pathToFileURL } from 'node:url';
import { createRepositories, type Repositories } from './repositories.js';
import { commitFiles, git, initRepository, makeTempDir } from './test-repos.js';

describe('resolving a branch or tag to its commit', () => {
  let temp: { path: string; remove: () => Promise<void> };
  let work: string;
  let repos: Repositories;
  const fetches: string[][] = [];

  before(async () => {
    temp = await makeTempDir('resolve-ref');
    work = await initRepository(join(temp.path, 'work'));
    repos = createRepositories({ dataPath: join(temp.path, 'data'), fetchTimeoutMs: 30_000, observeGit: (args) => void (args.includes('fetch') || args.includes('clone') ? fetches.push([...args]) : undefined) });
  });
  after(() => temp.remove());

  it('finds branches before tags, full refs as given, and peels annotated tags', async () => {
    const first = await commitFiles(work, { 'a.txt': '1' });
    await git(work, ['tag', '-a', '-m', 'release', 'v1']);
    await git(work, ['tag', 'main-tag']);
    const second = await commitFiles(work, { 'a.txt': '2' });
    await git(work, ['branch', 'v1']);
    assert.deepEqual(await repos.resolveRef(work, 'main'), { found: true, sha: second, ref: 'refs/heads/main' });
    assert.deepEqual(await repos.resolveRef(work, 'v1'), { found: true, sha: second, ref: 'refs/heads/v1' }, 'the branch wins');
    assert.deepEqual(await repos.resolveRef(work, 'refs/tags/v1'), { found: true, sha: first, ref: 'refs/tags/v1' });
    assert.deepEqual(await repos.resolveRef(work, 'main-tag'), { found: true, sha: first, ref: 'refs/tags/main-tag' });
  });

  it('refuses what is not a ref name without running git on it, and says when none matches', async () => {
    for (const ref of ['', '-x', '--upload-pack=touch x', 'main~1', 'main^', 'a..b', 'a b', 'HEAD@{1}', 'main:a.txt', 'x\n']) {
      const answer = await repos.resolveRef(work, ref);
      assert.equal(answer.found, false, ref);
      assert.match(answer.found ? '' : answer.reason, /is not a branch or tag name/, ref);
    }
    const missing = await repos.resolveRef(work, 'nope');
    assert.match(missing.found ? '' : missing.reason, /no branch or tag 'nope'/);
  });

  it('fetches a URL repository each time, so a moved branch resolves to its new commit', async () => {
    const url = pathToFileURL(work).href;
    const before = await git(work, ['rev-parse', 'HEAD']);
    assert.deepEqual(await repos.resolveRef(url, 'main'), { found: true, sha: before, ref: 'refs/heads/main' });
    const moved = await commitFiles(work, { 'a.txt': '3' });
    const fetchesBefore = fetches.length;
    assert.deepEqual(await repos.resolveRef(url, 'main'), { found: true, sha: moved, ref: 'refs/heads/main' });
    assert.equal(fetches.length, fetchesBefore + 1);
    const unreachable = await repos.resolveRef(pathToFileURL(join(temp.path, 'gone')).href, 'main');
    assert.match(unreachable.found ? '' : unreachable.reason, /could not be fetched/);
  });
});
