import assert from 'node:assert/strict';
import { mkdir, writeFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { pathToFileURL } from 'node:url';
import { createRepositories, type Repositories } from './repositories.js';
import { commitFiles, git, initRepository, makeTempDir } from './test-repos.js';

describe('checkLocation', () => {
  let temp: { path: string; remove: () => Promise<void> };
  let work: string;
  let bare: string;
  const gitRuns: string[][] = [];
  let repos: Repositories;

  before(async () => {
    temp = await makeTempDir('locations');
    work = await initRepository(join(temp.path, 'work'));
    await commitFiles(work, { 'sub/file.txt': 'x\n' });
    bare = join(temp.path, 'bare.git');
    await git(temp.path, ['init', '--quiet', '--bare', bare]);
    await mkdir(join(temp.path, 'plain'));
    await writeFile(join(temp.path, 'a-file'), 'x');
    repos = createRepositories({ dataPath: join(temp.path, 'data'), fetchTimeoutMs: 1000, observeGit: (args) => gitRuns.push([...args]) });
  });
  after(() => temp.remove());

  it('accepts local repositories, bare or not, absolute or relative', async () => {
    assert.equal(await repos.checkLocation(work), null);
    assert.equal(await repos.checkLocation(bare), null);
    assert.equal(await repos.checkLocation(relative(process.cwd(), bare)), null);
  });

  it('refuses paths that are not a repository themselves', async () => {
    assert.match((await repos.checkLocation(join(temp.path, 'missing'))) ?? '', /does not exist/);
    assert.match((await repos.checkLocation(join(temp.path, 'a-file'))) ?? '', /not a directory/);
    assert.match((await repos.checkLocation(join(temp.path, 'plain'))) ?? '', /not a git repository/);
    // A directory inside a work tree must not pass for the enclosing repository.
    assert.match((await repos.checkLocation(join(work, 'sub'))) ?? '', /not a git repository/);
  });

  it('accepts URLs by scheme alone, without touching the network', async () => {
    gitRuns.length = 0;
    for (const url of ['https://git.example.test/a/b.git', 'http://127.0.0.1:1/x', 'ssh://git@example.test/x.git', 'SSH://example.test/x', pathToFileURL(join(temp.path, 'nothing-here.git')).href]) {
      assert.equal(await repos.checkLocation(url), null, url);
    }
    assert.deepEqual(gitRuns, []);
  });

  it('refuses scp-like addresses, transport helpers, other schemes and option-like strings', async () => {
    const refused: Array<[string, RegExp]> = [
      ['git@github.com:owner/repo.git', /neither a local path nor a URL/],
      ['example.test:repo', /neither a local path nor a URL/],
      ['ext::sh -c touch% /tmp/pwned', /neither a local path nor a URL/],
      ['fd::3', /neither a local path nor a URL/],
      ['ftp://example.test/repo.git', /scheme 'ftp' is not accepted/],
      ['git://example.test/repo.git', /scheme 'git' is not accepted/],
      ['--upload-pack=touch /tmp/pwned', /starts with '-'/],
      ['', /empty/],
      ['/tmp/a\nb', /control characters/],
    ];
    for (const [repo, message] of refused) assert.match((await repos.checkLocation(repo)) ?? 'accepted', message, repo);
  });

  it('answers false rather than running git for a refused location', async () => {
    gitRuns.length = 0;
    assert.equal(await repos.ensureCommit('ext::sh -c true', '3f786850e387550fdab836ed7e6dc881de23001b'), false);
    assert.deepEqual(gitRuns, []);
  });
});
