// Test support for the management API: both services on one real server, real users signed in
// through POST /api/v1/login/password, and a request helper that can set Host (fetch cannot).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Fastify, { type FastifyInstance } from 'fastify';
import { openPipeline, pipelinePlugin, pipelineServerOptions, readPipelineConfig, type PipelineDeps } from '@conveyor/pipeline';
import { addMember, createRealm, createSigninService, createUser, type SigninService } from '@conveyor/signin';
import { signinPlugin } from '@conveyor/signin/plugin';
import { createTestSessionResolver } from '../testing/signin-sessions.js';
import { gitSync } from '@conveyor/kit/testing';

export const PASSWORD = 'correct horse battery staple';

export interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  json: Record<string, unknown>;
}

export interface Caller {
  cookie?: string;
  token?: string;
  host?: string;
}

export interface ManageServer {
  dir: string;
  url: string;
  pipeline: PipelineDeps;
  signin: SigninService;
  /** A real local git repository with one commit carrying a valid pipeline file. */
  repo: string;
  sha: string;
  /** User ids by name. */
  users: Record<string, string>;
  signIn(username: string, host?: string): Promise<string>;
  call(method: string, path: string, caller?: Caller, body?: unknown): Promise<Answer>;
  stop(): Promise<void>;
}

const git = gitSync;

function send(url: string, method: string, path: string, headers: Record<string, string>, body: string | undefined): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const outgoing = httpRequest(`${url}${path}`, { method, headers }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let json: Record<string, unknown> = {};
        try {
          json = text === '' ? {} : (JSON.parse(text) as Record<string, unknown>);
        } catch {
          json = {};
        }
        resolve({ status: response.statusCode ?? 0, headers: response.headers, text, json });
      });
    });
    outgoing.on('error', reject);
    outgoing.end(body);
  });
}

/**
 * Users: olivia (owns projects), mel (a member), ada (realm-admin of system), sam (system-admin),
 * ravi (realm-admin of acme, a realm on host acme.test).
 */
export async function startManageServer(): Promise<ManageServer> {
  const dir = mkdtempSync(join(tmpdir(), 'manage-'));
  const config = readPipelineConfig({ PIPELINE_DATABASE_PATH: join(dir, 'pipeline.db'), PIPELINE_DATA_PATH: join(dir, 'data'), PIPELINE_LOG_LEVEL: 'silent' });
  const pipeline = openPipeline(config);
  const repo = join(dir, 'repo');
  git(dir, ['init', '-q', '-b', 'main', repo]);
  writeFileSync(join(repo, '.pipeline.yml'), 'tasks:\n  build:\n    image: x\n    script: [make]\n');
  git(repo, ['add', '--all']);
  git(repo, ['commit', '-q', '-m', 'pipeline']);
  const sha = git(repo, ['rev-parse', 'HEAD']);

  const signin = await createSigninService({ databasePath: join(dir, 'signin.db'), realmsPath: join(dir, 'realms') });
  await createRealm(signin.deps.store, signin.deps.clock, { slug: 'acme', hosts: ['acme.test'] });
  const users: Record<string, string> = {};
  const members: [string, string, string[]][] = [
    ['olivia', 'system', []],
    ['mel', 'system', []],
    ['ada', 'system', ['realm-admin']],
    ['sam', 'system', ['system-admin']],
    ['ravi', 'acme', ['realm-admin']],
  ];
  for (const [username, realm, roles] of members) {
    const user = await createUser(signin.deps, { username, password: PASSWORD });
    await addMember(signin.deps, { realm, user: user.id, status: 'active', roles });
    users[username] = user.id;
  }
  // olivia is a member of acme too, without roles.
  await addMember(signin.deps, { realm: 'acme', user: users.olivia ?? '', status: 'active', roles: [] });

  const app: FastifyInstance = Fastify(pipelineServerOptions({ requestTimeoutMs: config.requestTimeoutMs }));
  const sessions = createTestSessionResolver(() => app, signin);
  await app.register(pipelinePlugin, { deps: pipeline, sessions });
  await app.register(signinPlugin, { deps: signin.deps, handleNotFound: false, serveOpenApi: false });
  const url = await app.listen({ port: 0, host: '127.0.0.1' });
  const server = app;

  const call = (method: string, path: string, caller: Caller = {}, body?: unknown): Promise<Answer> => {
    const headers: Record<string, string> = {};
    // A browser sends its page's origin with every change; the CSRF check requires it with a cookie.
    if (caller.cookie !== undefined) Object.assign(headers, { cookie: caller.cookie, origin: caller.host === undefined ? url : `http://${caller.host}` });
    if (caller.token !== undefined) headers.authorization = `Bearer ${caller.token}`;
    if (caller.host !== undefined) headers.host = caller.host;
    if (body !== undefined) headers['content-type'] = 'application/json';
    return send(url, method, path, headers, body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body));
  };

  return {
    dir,
    url,
    pipeline,
    signin,
    repo,
    sha,
    users,
    async signIn(username, host) {
      const answer = await call('POST', '/api/v1/login/password', { host }, { identifier: username, password: PASSWORD });
      if (answer.status !== 200) throw new Error(`sign-in of ${username}: ${answer.status} ${answer.text}`);
      const setCookie = answer.headers['set-cookie'];
      const first = (Array.isArray(setCookie) ? setCookie[0] : setCookie) ?? '';
      return first.split(';')[0] ?? '';
    },
    call,
    async stop() {
      await server.close();
      await signin.close();
      await pipeline.store.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
