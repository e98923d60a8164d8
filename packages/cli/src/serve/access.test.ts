// The access table of the pipeline service with real sign-ins, on the combined server (`conveyor serve`)
// and through separate services linked by PIPELINE_SIGNIN_URL.
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { openPipeline, readPipelineConfig, startPipelineServer, systemClock, type PipelineDeps, type RunningServer } from '@conveyor/pipeline';
import { startSigninServer, type SigninServer } from '@conveyor/signin';
import { createHttpSessions } from '../sessions/http.js';
import { readServeConfig } from './config.js';
import { startCombinedServer, type CombinedServer } from './server.js';
import { ACME_HOST, EVERYONE, MANAGERS, readPaths, seed, sign, type Seeded, type Who } from './testing/fixture.js';
import { send } from './testing/http.js';

const withCookie = (cookie: string, extra: Record<string, string> = {}) => (cookie === '' ? extra : { cookie, ...extra });

/**
 * Every row of the access table, one test per (who, what, visibility): 200 with the real bytes for a
 * public project or a caller who may manage it, else the same 404 as for a project that does not exist.
 */
function testAccessTable(url: () => string, seeded: () => Seeded): void {
  for (const visibility of ['private', 'public'] as const) {
    for (const what of ['job read', 'bare task read', 'scoped task read', 'log read', 'artifact download']) {
      for (const who of EVERYONE) {
        const expected = visibility === 'public' || MANAGERS.has(who) ? 200 : 404;
        it(`${who}: ${what} of a ${visibility} project is ${expected}`, async () => {
          const data = seeded();
          const answer = await send(url(), 'GET', readPaths(data[visibility])[what] ?? '', withCookie(data.cookies[who]));
          assert.equal(answer.status, expected, answer.text);
          if (expected === 404) assert.deepEqual(answer.json(), { error: 'not found', code: 'not_found' });
          if (expected === 200 && what === 'log read') assert.equal(answer.text, data.log);
          if (expected === 200 && what === 'artifact download') assert.equal(answer.text, data.artifactBytes);
        });
      }
    }
  }
}

describe('access table on `conveyor serve`, with real sign-ins', () => {
  let dir: string;
  let server: CombinedServer;
  let seeded: Seeded;

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'conveyor-access-'));
    const config = readServeConfig({ CONVEYOR_DATA_PATH: join(dir, 'data'), CONVEYOR_PORT: '0', PIPELINE_LOG_LEVEL: 'silent' });
    server = await startCombinedServer(config);
    seeded = await seed({ dir, signin: server.signin, pipeline: server.pipeline, signinUrl: server.url, pipelineUrl: server.url });
  });
  after(async () => {
    await server.stop();
    await rm(dir, { recursive: true, force: true });
  });

  testAccessTable(() => server.url, () => seeded);


  it("a project read through another realm's host is 404, for anyone, public or not", async () => {
    for (const job of [seeded.public, seeded.private]) {
      for (const [what, path] of Object.entries(readPaths(job))) {
        for (const who of ['anonymous', 'a member of another realm', 'system administrator'] as Who[]) {
          const answer = await send(server.url, 'GET', path, withCookie(seeded.cookies[who], { host: ACME_HOST }));
          assert.equal(answer.status, 404, `${who}: ${what} of ${job.project} on ${ACME_HOST}`);
        }
      }
    }
    // A trigger through acme's host does not find the system realm's project either.
    const body = JSON.stringify({ sha: seeded.public.sha, ref: 'refs/heads/main' });
    const trigger = await send(server.url, 'POST', `/api/v1/projects/${seeded.public.project}/jobs`, { host: ACME_HOST, 'content-type': 'application/json', 'x-hub-signature-256': sign(body, seeded.public.secret) }, body);
    assert.equal(trigger.status, 404);
  });

  describe('CSRF', () => {
    const jobCount = async (deps: PipelineDeps, project: string) => {
      const found = await deps.store.findProject(project);
      let count = 0;
      for (let number = 1; (await deps.store.findJob(found?.id ?? '', String(number))) !== null; number += 1) count += 1;
      return count;
    };
    const start = (headers: Record<string, string>) => {
      const body = JSON.stringify({ sha: seeded.private.sha, ref: 'refs/heads/main' });
      return send(server.url, 'POST', `/api/v1/projects/${seeded.private.project}/jobs`, { 'content-type': 'application/json', 'x-hub-signature-256': sign(body, seeded.private.secret), ...headers }, body);
    };

    it('a cross-origin change with a session cookie is refused 403 cross_site and changes nothing', async () => {
      const before = await jobCount(server.pipeline, seeded.private.project);
      const variants: Record<string, string>[] = [
        { origin: 'https://evil.example' },
        { origin: 'null' },
        { 'sec-fetch-site': 'cross-site' },
        {},
      ];
      for (const headers of variants) {
        const answer = await start({ cookie: seeded.cookies.owner, ...headers });
        assert.equal(answer.status, 403, JSON.stringify(headers));
        assert.deepEqual(answer.json(), { error: 'cross-site request refused', code: 'cross_site' });
      }
      // The cancel of an existing job: refused, the job stays as it was.
      const cancelBody = JSON.stringify({ job: seeded.private.job });
      const cancel = await send(server.url, 'POST', `/api/v1/projects/${seeded.private.project}/jobs/${seeded.private.job}/cancel`, {
        'content-type': 'application/json',
        'x-hub-signature-256': sign(cancelBody, seeded.private.secret),
        cookie: seeded.cookies.owner,
        origin: 'https://evil.example',
      }, cancelBody);
      assert.equal(cancel.status, 403);
      assert.equal((await server.pipeline.store.getJobById(seeded.private.job))?.cancelRequested, false);
      assert.equal(await jobCount(server.pipeline, seeded.private.project), before);
    });

    it('the same change from the own origin (Origin, or Sec-Fetch-Site: same-origin) goes through', async () => {
      const before = await jobCount(server.pipeline, seeded.private.project);
      assert.equal((await start({ cookie: seeded.cookies.owner, origin: server.url })).status, 200);
      assert.equal((await start({ cookie: seeded.cookies.owner, 'sec-fetch-site': 'same-origin' })).status, 200);
      assert.equal(await jobCount(server.pipeline, seeded.private.project), before + 2);
    });

    it('requests without a session cookie are not affected, whatever their origin', async () => {
      const before = await jobCount(server.pipeline, seeded.private.project);
      assert.equal((await start({ origin: 'https://evil.example' })).status, 200);
      assert.equal((await start({ cookie: 'theme=dark', origin: 'https://evil.example' })).status, 200);
      assert.equal(await jobCount(server.pipeline, seeded.private.project), before + 2);
    });

    it('reads with a session cookie are never refused for their origin', async () => {
      const answer = await send(server.url, 'GET', readPaths(seeded.private)['job read'] ?? '', { cookie: seeded.cookies.owner, origin: 'https://evil.example' });
      assert.equal(answer.status, 200);
    });
  });

  it('logout ends access at once: the next request with the old cookie is anonymous (the cached check is dropped)', async () => {
    const cookie = await seeded.signIn('owner');
    const path = readPaths(seeded.private)['job read'] ?? '';
    // Twice: the second answer comes from the cached check.
    assert.equal((await send(server.url, 'GET', path, { cookie })).status, 200);
    assert.equal((await send(server.url, 'GET', path, { cookie })).status, 200);
    assert.equal((await send(server.url, 'POST', '/api/v1/logout', { cookie })).status, 200);
    assert.equal((await send(server.url, 'GET', path, { cookie })).status, 404);
  });
});

describe('access through separate services linked by PIPELINE_SIGNIN_URL', () => {
  let dir: string;
  let signin: SigninServer;
  let pipeline: RunningServer;
  let seedingDeps: PipelineDeps;
  let sessions: ReturnType<typeof createHttpSessions>;
  let seeded: Seeded;
  let closeSigninSeeding: () => Promise<void>;

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'conveyor-access-split-'));
    const authEnv = { AUTH_DATABASE_PATH: join(dir, 'signin.db'), AUTH_REALMS_PATH: join(dir, 'realms'), AUTH_PORT: '0' };
    signin = await startSigninServer({ env: authEnv });
    const { openSigninAdmin } = await import('@conveyor/signin');
    const signinAdmin = await openSigninAdmin({ env: authEnv });
    closeSigninSeeding = () => signinAdmin.close();
    const config = readPipelineConfig({ PIPELINE_DATABASE_PATH: join(dir, 'pipeline.db'), PIPELINE_DATA_PATH: join(dir, 'pipeline'), PIPELINE_PORT: '0', PIPELINE_LOG_LEVEL: 'silent', PIPELINE_SIGNIN_URL: signin.url });
    sessions = createHttpSessions(config.signinUrl ?? '');
    pipeline = await startPipelineServer(config, systemClock, { sessions });
    seedingDeps = openPipeline(config);
    seeded = await seed({ dir, signin: signinAdmin.deps, pipeline: seedingDeps, signinUrl: signin.url, pipelineUrl: pipeline.url });
  });
  after(async () => {
    await pipeline.stop();
    sessions.close();
    await seedingDeps.store.close();
    await closeSigninSeeding();
    await signin.close();
    await rm(dir, { recursive: true, force: true });
  });

  testAccessTable(() => pipeline.url, () => seeded);


  it("public reads are open to anyone; a project read through another realm's host is 404", async () => {
    assert.equal((await send(pipeline.url, 'GET', readPaths(seeded.public)['job read'] ?? '')).status, 200);
    assert.equal((await send(pipeline.url, 'GET', readPaths(seeded.public)['job read'] ?? '', { host: ACME_HOST })).status, 404);
    assert.equal((await send(pipeline.url, 'GET', readPaths(seeded.private)['job read'] ?? '', { host: ACME_HOST, cookie: seeded.cookies['a member of another realm'] })).status, 404);
  });

  it('CSRF: a cross-origin change with a session cookie is refused and changes nothing', async () => {
    const body = JSON.stringify({ sha: seeded.private.sha, ref: 'refs/heads/main' });
    const answer = await send(pipeline.url, 'POST', `/api/v1/projects/${seeded.private.project}/jobs`, {
      'content-type': 'application/json',
      'x-hub-signature-256': sign(body, seeded.private.secret),
      cookie: seeded.cookies.owner,
      origin: 'https://evil.example',
    }, body);
    assert.equal(answer.status, 403);
    const project = await seedingDeps.store.findProject(seeded.private.project);
    assert.equal(await seedingDeps.store.findJob(project?.id ?? '', '2'), null);
  });

  it('a logout in the sign-in service is seen within the 2 s cache limit', async () => {
    const cookie = await seeded.signIn('owner');
    const path = readPaths(seeded.private)['job read'] ?? '';
    assert.equal((await send(pipeline.url, 'GET', path, { cookie })).status, 200);
    assert.equal((await send(signin.url, 'POST', '/api/v1/logout', { cookie })).status, 200);
    await new Promise((resolve) => setTimeout(resolve, 2100));
    assert.equal((await send(pipeline.url, 'GET', path, { cookie })).status, 404);
  });
});
