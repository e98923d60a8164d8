import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { pathToFileURL } from 'node:url';
import { classifyLocation } from './locations.js';
import { redactUrlCredentials } from './redact.js';
import { createRepositories, type Repositories } from './repositories.js';
import { commitFiles, git, initRepository, makeTempDir } from './test-repos.js';

describe('URL schemes in any case', () => {
  it('hands git the scheme in lower case and the rest as written', () => {
    assert.deepEqual(classifyLocation('FILE:///srv/Git/App.git'), { kind: 'url', url: 'file:///srv/Git/App.git' });
    assert.deepEqual(classifyLocation('File:///srv/x.git'), { kind: 'url', url: 'file:///srv/x.git' });
    assert.deepEqual(classifyLocation('HtTpS://Git.Example.test/Team/App.git'), { kind: 'url', url: 'https://Git.Example.test/Team/App.git' });
    assert.deepEqual(classifyLocation('SSH://git@example.test/x.git'), { kind: 'url', url: 'ssh://git@example.test/x.git' });
    assert.match(classifyLocation('FTP://example.test/x').kind, /refused/);
  });
});

describe('finding a commit, and why it is not there', () => {
  let temp: { path: string; remove: () => Promise<void> };
  let bare: string;
  let first: string;
  let repos: Repositories;

  before(async () => {
    temp = await makeTempDir('lookup');
    const work = await initRepository(join(temp.path, 'work'));
    first = await commitFiles(work, { 'a.txt': '1\n' });
    bare = join(temp.path, 'origin.git');
    await git(temp.path, ['clone', '--quiet', '--bare', work, bare]);
    repos = createRepositories({ dataPath: join(temp.path, 'data'), fetchTimeoutMs: 10_000 });
  });
  after(async () => {
    await repos.close();
    await temp.remove();
  });

  it('fetches a FILE:// URL (upper-case scheme) like a file:// one', async () => {
    const url = pathToFileURL(bare).href.replace(/^file:/, 'FILE:');
    assert.deepEqual(await repos.findCommit(url, first), { found: true });
    assert.equal(await repos.ensureCommit(url, first), true);
  });

  it("gives git's own error for a fetch that failed, and a plain reason otherwise", async () => {
    const gone = pathToFileURL(join(temp.path, 'gone.git')).href;
    const lookup = await repos.findCommit(gone, first);
    assert.equal(lookup.found, false);
    assert.match(
      lookup.found ? '' : lookup.reason,
      /^[0-9a-f]{40} could not be fetched \(git clone --mirror file:\/\/.*gone\.git failed \(exit 128\): .*Could not read from remote repository.*\); check the project's repository URL/,
    );
    const missing = await repos.findCommit(bare, 'e'.repeat(40));
    assert.deepEqual(missing, { found: false, reason: `${'e'.repeat(40)} is not a commit of the project's repository; push it first` });
    const refused = await repos.findCommit('ext::sh -c true', first);
    assert.match(refused.found ? '' : refused.reason, /^the project's repository is unusable: .*neither a local path nor a URL/);
  });

  it('masks credentials of URLs in the reason', async () => {
    // Port 9 on the loopback refuses at once, so git fails without waiting.
    const lookup = await repos.findCommit('https://ci-bot:glpat-SECRET123@127.0.0.1:9/team/app.git', first);
    assert.equal(lookup.found, false);
    const reason = lookup.found ? '' : lookup.reason;
    assert.match(reason, /https:\/\/ci-bot:\*\*\*@127\.0\.0\.1:9\/team\/app\.git/);
    assert.ok(!reason.includes('glpat-SECRET123'), reason);
  });
});

describe('redactUrlCredentials', () => {
  it('masks passwords and lone http(s) tokens, keeps ssh users and plain text', () => {
    const cases: Array<[string, string]> = [
      ['https://user:token@host/x.git', 'https://user:***@host/x.git'],
      ['fatal: HTTP://u:p%40ss@h:8080/r and https://a:b@c/d', 'fatal: HTTP://u:***@h:8080/r and https://a:***@c/d'],
      ['https://ghp_abcdef@github.com/o/r.git', 'https://***@github.com/o/r.git'],
      ['ssh://git@example.test/r.git', 'ssh://git@example.test/r.git'],
      ['ssh://git:pw@example.test/r.git', 'ssh://git:***@example.test/r.git'],
      ['file:///srv/a@b/repo.git', 'file:///srv/a@b/repo.git'],
      ['no url here, mail me@example.test', 'no url here, mail me@example.test'],
    ];
    for (const [input, expected] of cases) assert.equal(redactUrlCredentials(input), expected, input);
  });
});
