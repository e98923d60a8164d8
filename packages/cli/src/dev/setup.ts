import { randomBytes, randomInt } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { admin, authenticateWorker, createJob, ServiceError, type PipelineDeps } from '@conveyor/pipeline';
import { addMember, createUser, findActingRoles, requireUser, SigninError, type SigninDeps } from '@conveyor/signin';
import { DEMO_BRANCH, DEMO_SECRET_NAME, ensureDemoRepository, machineArch } from './demo-repo.js';

export const ADMIN_USERNAME = 'admin';
export const ADMIN_REALM = 'system';
export const ADMIN_ROLE = 'system-admin';
export const DEMO_PROJECT = 'demo';
/** The trigger recorded on the demo's first job, so it reads apart from pushes and manual starts. */
export const DEV_TRIGGER = 'dev';
const WORKER_NAME = 'dev-worker';

/** Letters and digits without look-alikes (0/O, 1/l/I): a person may have to type it. */
const PASSWORD_ALPHABET = 'abcdefghijkmnopqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ23456789';

/** 24 characters from a 56-letter alphabet: about 139 bits. */
export function generatePassword(): string {
  return Array.from({ length: 24 }, () => PASSWORD_ALPHABET[randomInt(PASSWORD_ALPHABET.length)]).join('');
}

export interface AdminResult {
  userId: string;
  created: boolean;
  /** Set only when this start generated it: the one time it is shown. */
  generatedPassword: string | null;
}

/**
 * The administrator: created on first start with the given password (or a generated one) and made a
 * `system-admin` of the system realm. On later starts the user is kept as it is (its password too); only a
 * missing membership, left by a start that stopped half-way, is added.
 */
export async function ensureAdmin(signin: SigninDeps, password: string | null): Promise<AdminResult> {
  const existing = await requireUser(signin.store, ADMIN_USERNAME).catch((error: unknown) => {
    if (error instanceof SigninError && error.status === 404) return null;
    throw error;
  });
  const generated = existing === null && password === null ? generatePassword() : null;
  const user = existing ?? (await createUser(signin, { username: ADMIN_USERNAME, password: password ?? generated ?? '' }));
  if ((await findActingRoles(signin, ADMIN_REALM, user.id)) === null) {
    await addMember(signin, { realm: ADMIN_REALM, user: user.id, status: 'active', roles: [ADMIN_ROLE] });
  }
  return { userId: user.id, created: existing === null, generatedPassword: generated };
}

export interface WorkerCredentials {
  name: string;
  tokenFile: string;
  workDir: string;
}

/** Writes a file only its owner may read, whatever the umask. */
function writePrivateFile(path: string, text: string): void {
  writeFileSync(path, text, { mode: 0o600 });
  chmodSync(path, 0o600);
}

/** The token in the file, when it still belongs to a worker that is not revoked. */
async function isTokenValid(pipeline: PipelineDeps, tokenFile: string): Promise<boolean> {
  if (!existsSync(tokenFile)) return false;
  const token = readFileSync(tokenFile, 'utf8').trim();
  return authenticateWorker(pipeline, token).then(
    () => true,
    () => false,
  );
}

/**
 * The local worker's token file (0600) and work directory (0700, the worker refuses one others can
 * write), under `devPath`. A valid token file is reused; otherwise a new worker is registered, named
 * dev-worker (dev-worker-2, ... when that name is taken by an earlier, lost token).
 */
export async function ensureWorker(pipeline: PipelineDeps, devPath: string): Promise<WorkerCredentials> {
  mkdirSync(devPath, { recursive: true, mode: 0o700 });
  chmodSync(devPath, 0o700);
  const workDir = join(devPath, 'work');
  mkdirSync(workDir, { recursive: true, mode: 0o700 });
  chmodSync(workDir, 0o700);
  const tokenFile = join(devPath, 'worker-token');
  const nameFile = join(devPath, 'worker-name');
  if ((await isTokenValid(pipeline, tokenFile)) && existsSync(nameFile)) {
    return { name: readFileSync(nameFile, 'utf8').trim(), tokenFile, workDir };
  }
  for (let suffix = 1; ; suffix += 1) {
    const name = suffix === 1 ? WORKER_NAME : `${WORKER_NAME}-${suffix}`;
    const created = await admin.createWorker(pipeline, { name }).catch((error: unknown) => {
      if (error instanceof ServiceError && error.code === 'duplicate') return null;
      throw error;
    });
    if (created === null) continue;
    writePrivateFile(tokenFile, `${created.token}\n`);
    writeFileSync(nameFile, `${name}\n`);
    return { name, tokenFile, workDir };
  }
}

export interface DemoResult {
  created: boolean;
  /** The first job, started when this start created the project. */
  job: { id: string; number: number } | null;
}

/**
 * The demo project: on first start, a private project owned by the administrator in the system realm, on
 * a local repository under `devPath`, with a secret variable, and its first job at the repository's HEAD.
 * A project named `demo` that exists is left alone, and no job is started for it.
 */
export async function ensureDemo(pipeline: PipelineDeps, devPath: string, ownerUserId: string): Promise<DemoResult> {
  const existing = await admin.showProject(pipeline, DEMO_PROJECT).catch((error: unknown) => {
    if (error instanceof ServiceError && error.code === 'not_found') return null;
    throw error;
  });
  if (existing !== null) return { created: false, job: null };
  const sha = ensureDemoRepository(join(devPath, 'demo-repo'), machineArch());
  const project = await admin.createProject(pipeline, { name: DEMO_PROJECT, repo: join(devPath, 'demo-repo'), visibility: 'private', ownerUserId, realm: ADMIN_REALM });
  await admin.setVariable(pipeline, project.id, DEMO_SECRET_NAME, `demo-${randomBytes(12).toString('hex')}`, true);
  const { job } = await createJob(pipeline, project, { sha, ref: DEMO_BRANCH, base: null, actor: ADMIN_USERNAME, trigger: DEV_TRIGGER });
  return { created: true, job: { id: job.id, number: job.number } };
}
