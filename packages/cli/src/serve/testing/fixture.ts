// A populated deployment for the access tests: real sign-ins, real git repositories, a real job whose
// task has a log and an artifact (completed through the worker API with a registered worker token).
import { createHmac } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { admin, type PipelineDeps } from '@conveyor/pipeline';
import { addMember, createRealm, createUser, type SigninDeps } from '@conveyor/signin';
import { send, sessionCookie } from './http.js';
import { gitSync } from '@conveyor/kit/testing';

export const PASSWORD = 'correct horse battery staple';
export const ACME_HOST = 'acme.test';
const PIPELINE = 'tasks:\n  build:\n    image: x\n    script: [make]\n    artifacts: ["dist/*"]\n';

const git = gitSync;

function makeRepository(dir: string): { repo: string; sha: string } {
  mkdirSync(dir, { recursive: true });
  git(dir, ['init', '-q', '-b', 'main', '.']);
  writeFileSync(join(dir, '.pipeline.yml'), PIPELINE);
  git(dir, ['add', '--all']);
  git(dir, ['commit', '-q', '-m', 'pipeline']);
  return { repo: dir, sha: git(dir, ['rev-parse', 'HEAD']) };
}

export const sign = (body: string, secret: string): string => `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;

/** Who asks: each row of the access table, as the Cookie header they send (empty: none). */
export type Who = 'owner' | 'realm administrator' | 'system administrator' | 'another member' | 'a member of another realm' | 'anonymous' | 'a logged-out cookie';
export const EVERYONE: readonly Who[] = ['owner', 'realm administrator', 'system administrator', 'another member', 'a member of another realm', 'anonymous', 'a logged-out cookie'];
export const MANAGERS: ReadonlySet<Who> = new Set<Who>(['owner', 'realm administrator', 'system administrator']);

export interface SeededJob {
  project: string;
  secret: string;
  sha: string;
  job: string;
  task: string;
  artifact: string;
}

export interface Seeded {
  cookies: Record<Who, string>;
  ownerId: string;
  private: SeededJob;
  public: SeededJob;
  /** The log the task wrote. */
  log: string;
  artifactBytes: string;
  /** Signs in through the sign-in service's HTTP API; returns the `name=value` cookie. */
  signIn(username: string, host?: string): Promise<string>;
}

/**
 * Users and roles in the sign-in service (system realm, plus realm `acme` on host acme.test), two projects
 * owned by `owner` (private and public) with one finished job each. `signinUrl` is where people sign in,
 * `pipelineUrl` where the pipeline answers (the same URL under `conveyor serve`).
 */
export async function seed(options: { dir: string; signin: SigninDeps; pipeline: PipelineDeps; signinUrl: string; pipelineUrl: string }): Promise<Seeded> {
  const { signin, pipeline, signinUrl, pipelineUrl } = options;
  await createRealm(signin.store, signin.clock, { slug: 'acme', displayName: 'Acme', hosts: [ACME_HOST] });
  const users: [string, string, string[]][] = [
    ['owner', 'system', []],
    ['ruth', 'system', ['realm-admin']],
    ['root', 'system', ['system-admin']],
    ['mallory', 'system', []],
    ['otto', 'acme', ['realm-admin', 'system-admin']],
  ];
  const ids: Record<string, string> = {};
  for (const [username, realm, roles] of users) {
    const user = await createUser(signin, { username, password: PASSWORD });
    ids[username] = user.id;
    await addMember(signin, { realm, user: user.id, status: 'active', roles });
  }
  const signIn = async (username: string, host?: string): Promise<string> => {
    const body = JSON.stringify({ identifier: username, password: PASSWORD });
    const headers: Record<string, string> = { 'content-type': 'application/json', ...(host === undefined ? {} : { host }) };
    const answer = await send(signinUrl, 'POST', '/api/v1/login/password', headers, body);
    return sessionCookie(answer, host === ACME_HOST ? 'auth_session_acme' : 'auth_session_system');
  };
  const loggedOut = await signIn('owner');
  const logout = await send(signinUrl, 'POST', '/api/v1/logout', { cookie: loggedOut });
  if (logout.status !== 200) throw new Error(`logout: ${logout.status}`);
  const cookies: Record<Who, string> = {
    owner: await signIn('owner'),
    'realm administrator': await signIn('ruth'),
    'system administrator': await signIn('root'),
    'another member': await signIn('mallory'),
    'a member of another realm': await signIn('otto', ACME_HOST),
    anonymous: '',
    'a logged-out cookie': loggedOut,
  };

  const { token } = await admin.createWorker(pipeline, { name: 'access-worker' });
  const log = 'building\nsecret-free output\n';
  const artifactBytes = 'the built thing\n';
  const makeJob = async (name: string, visibility: 'private' | 'public'): Promise<SeededJob> => {
    const { repo, sha } = makeRepository(join(options.dir, name));
    const project = await admin.createProject(pipeline, { name, repo, visibility, ownerUserId: ids.owner ?? null });
    const body = JSON.stringify({ sha, ref: 'refs/heads/main' });
    const created = await send(pipelineUrl, 'POST', `/api/v1/projects/${name}/jobs`, { 'content-type': 'application/json', 'x-hub-signature-256': sign(body, project.triggerSecret) }, body);
    if (created.status !== 200) throw new Error(`job: ${created.status} ${created.text}`);
    const job = String(created.json().job_id);
    const bearer = { authorization: `Bearer ${token}` };
    const claim = await send(pipelineUrl, 'POST', '/api/v1/tasks/claim', { ...bearer, 'content-type': 'application/json' }, JSON.stringify({ arches: ['amd64'], features: [], name: 'access-worker' }));
    const task = (claim.json().task as { id: string }).id;
    await send(pipelineUrl, 'POST', `/api/v1/tasks/${task}/log`, { ...bearer, 'content-type': 'application/octet-stream', 'x-log-offset': '0' }, log);
    const uploaded = await send(pipelineUrl, 'POST', `/api/v1/tasks/${task}/artifacts`, { ...bearer, 'content-type': 'application/octet-stream', 'x-artifact-path': 'dist/app.txt' }, artifactBytes);
    if (uploaded.status !== 201) throw new Error(`artifact: ${uploaded.status} ${uploaded.text}`);
    const done = await send(pipelineUrl, 'POST', `/api/v1/tasks/${task}/complete`, { ...bearer, 'content-type': 'application/json' }, JSON.stringify({ success: true, exit_code: 0, error: null }));
    if (done.status !== 200) throw new Error(`complete: ${done.status} ${done.text}`);
    return { project: name, secret: project.triggerSecret, sha, job, task, artifact: String(uploaded.json().id) };
  };
  return {
    cookies,
    ownerId: ids.owner ?? '',
    private: await makeJob('closed', 'private'),
    public: await makeJob('open', 'public'),
    log,
    artifactBytes,
    signIn,
  };
}

/** The five reads of the access table, as paths for a job. */
export function readPaths(job: SeededJob): Record<string, string> {
  const jobPath = `/api/v1/projects/${job.project}/jobs/${job.job}`;
  return {
    'job read': jobPath,
    'bare task read': `/api/v1/tasks/${job.task}`,
    'scoped task read': `/api/v1/projects/${job.project}/tasks/${job.task}`,
    'log read': `${jobPath}/tasks/${job.task}/log`,
    'artifact download': `${jobPath}/tasks/${job.task}/artifacts/${job.artifact}`,
  };
}
