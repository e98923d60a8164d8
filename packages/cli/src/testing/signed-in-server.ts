// Test support: both services on one real server, the pipeline finding sessions by asking the sign-in
// service's own `GET /api/v1/session` with the request's cookie (through signin-sessions.ts), and
// real sign-ins through `POST /api/v1/login/password`.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { mkdirSync } from 'node:fs';
import Fastify from 'fastify';
import { openPipeline, pipelinePlugin, pipelineServerOptions, readPipelineConfig, type PipelineDeps } from '@conveyor/pipeline';
import { addMember, createSigninService, createUser, type SigninService } from '@conveyor/signin';
import { signinPlugin } from '@conveyor/signin/plugin';
import { createTestSessionResolver } from './signin-sessions.js';
import { gitSync } from '@conveyor/kit/testing';

export const TEST_PASSWORD = 'correct horse battery staple';

export const git = gitSync;

/** A real repository on branch main; `commit` writes files and returns the new commit id. */
export function makeRepository(path: string): { repo: string; commit(files: Record<string, string>): string } {
  git(dirname(path), ['init', '-q', '-b', 'main', path]);
  return {
    repo: path,
    commit(files) {
      for (const [name, content] of Object.entries(files)) {
        mkdirSync(dirname(join(path, name)), { recursive: true });
        writeFileSync(join(path, name), content);
      }
      git(path, ['add', '--all']);
      git(path, ['commit', '-q', '-m', 'change']);
      return git(path, ['rev-parse', 'HEAD']);
    },
  };
}

export interface SignedInServer {
  url: string;
  dir: string;
  pipeline: PipelineDeps;
  signin: SigninService;
  /** Creates a user of the system realm with these roles; returns their id. */
  addUser(username: string, roles?: string[]): Promise<string>;
  /** Signs in with the password and returns the `Cookie` header value. */
  signIn(username: string): Promise<string>;
  close(): Promise<void>;
}

export async function startSignedInServer(): Promise<SignedInServer> {
  const dir = mkdtempSync(join(tmpdir(), 'conveyor-manage-'));
  const config = readPipelineConfig({ PIPELINE_DATABASE_PATH: join(dir, 'pipeline.db'), PIPELINE_DATA_PATH: join(dir, 'data'), PIPELINE_LOG_LEVEL: 'silent' });
  const pipeline = openPipeline(config);
  const signin = await createSigninService({ databasePath: join(dir, 'signin.db'), realmsPath: join(dir, 'realms') });
  const app = Fastify(pipelineServerOptions({ requestTimeoutMs: config.requestTimeoutMs }));
  await app.register(pipelinePlugin, { deps: pipeline, sessions: createTestSessionResolver(() => app, signin) });
  await app.register(signinPlugin, { deps: signin.deps, handleNotFound: false, serveOpenApi: false });
  const url = await app.listen({ port: 0, host: '127.0.0.1' });
  return {
    url,
    dir,
    pipeline,
    signin,
    async addUser(username, roles = []) {
      const user = await createUser(signin.deps, { username, password: TEST_PASSWORD });
      await addMember(signin.deps, { realm: 'system', user: user.id, status: 'active', roles });
      return user.id;
    },
    async signIn(username) {
      const response = await fetch(`${url}/api/v1/login/password`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ identifier: username, password: TEST_PASSWORD }),
      });
      if (response.status !== 200) throw new Error(`sign-in of ${username} failed: ${response.status} ${await response.text()}`);
      const cookie = /^([^;]+)/.exec(response.headers.get('set-cookie') ?? '')?.[1];
      if (cookie === undefined) throw new Error('no session cookie');
      return cookie;
    },
    async close() {
      await app.close();
      await signin.close();
      await pipeline.store.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
