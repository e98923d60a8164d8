// Records the store contract builds its cases from: plain values, no store of their own.
import { newId, sha256Hex } from '../ids.js';
import type { CompiledTask } from '../pipeline-file/types.js';
import type { OpenStore } from './contract.js';
import type { ClaimFilter, ClaimLease, Job, PipelineStore, Project, Worker } from './types.js';

export const T0 = 1_800_000_000_000;
export const LEASE_MS = 30_000;
export const GRACE_MS = 10_000;

/** Runs `body` against a fresh store and closes it whatever happens. */
export async function withStore(openStore: OpenStore, body: (store: PipelineStore) => Promise<void>): Promise<void> {
  const { store, close } = await openStore();
  try {
    await body(store);
  } finally {
    await close();
  }
}

export function makeProject(name: string, ownerUserId: string | null = null): Project {
  return {
    id: newId(),
    name,
    repo: `/srv/git/${name}`,
    visibility: 'private',
    enabled: true,
    ownerUserId,
    realm: 'system',
    triggerSecret: `secret-of-${name}`,
    createdAt: T0,
    updatedAt: T0,
  };
}

export async function addProject(store: PipelineStore, name: string, ownerUserId: string | null = null): Promise<Project> {
  const project = makeProject(name, ownerUserId);
  await store.createProject(project);
  return project;
}

export function makeWorker(name: string, ownerUserId: string | null = null): Worker {
  return { id: newId(), name, ownerUserId, createdAt: T0, revokedAt: null, lastSeenAt: null };
}

export async function addWorker(store: PipelineStore, name: string, ownerUserId: string | null = null): Promise<{ worker: Worker; token: string }> {
  const worker = makeWorker(name, ownerUserId);
  const token = `token-${worker.id}`;
  await store.createWorker(worker, sha256Hex(token));
  return { worker, token };
}

export function compiledTask(name: string, overrides: Partial<CompiledTask> = {}): CompiledTask {
  return {
    name,
    baseName: name,
    image: 'alpine:3',
    script: [`echo ${name}`],
    env: { STAGE: name },
    arch: 'amd64',
    requires: [],
    services: [],
    artifactPaths: [],
    artifactExpireIn: null,
    workdir: '/src',
    timeout: 600,
    maxAttempts: 1,
    allowFailure: false,
    needs: [],
    matrix: {},
    ...overrides,
  };
}

export async function addJob(store: PipelineStore, project: Project, tasks: CompiledTask[], now = T0): Promise<Job> {
  return store.insertJob(
    { projectId: project.id, ref: 'refs/heads/main', headSha: 'a'.repeat(40), base: null, actor: 'alice', trigger: 'api', tasks },
    { jobId: newId(), taskIds: tasks.map(() => newId()) },
    now,
  );
}

export function filterFor(overrides: Partial<ClaimFilter> = {}): ClaimFilter {
  return { arches: ['amd64'], features: [], ownerUserId: null, ...overrides };
}

export function leaseFor(worker: Worker, now = T0): ClaimLease {
  return { workerId: worker.id, workerName: worker.name, now, leaseMs: LEASE_MS, timeoutGraceMs: GRACE_MS };
}

export async function statesOf(store: PipelineStore, jobId: string): Promise<Record<string, string>> {
  return Object.fromEntries((await store.listTasksOfJob(jobId)).map((task) => [task.name, task.state]));
}
