import { execFile } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

const GIT_IDENTITY = {
  GIT_AUTHOR_NAME: 'Conveyor Bench',
  GIT_AUTHOR_EMAIL: 'bench@conveyor.invalid',
  GIT_COMMITTER_NAME: 'Conveyor Bench',
  GIT_COMMITTER_EMAIL: 'bench@conveyor.invalid',
};

async function git(directory: string, args: string[]): Promise<string> {
  const { stdout } = await run('git', ['-C', directory, ...args], { env: { ...process.env, ...GIT_IDENTITY } });
  return stdout.trim();
}

/** Matrix values `v001`, `v002`, ... as a YAML flow list. */
function values(prefix: string, count: number): string {
  return `[${Array.from({ length: count }, (_, index) => `"${prefix}${String(index + 1).padStart(3, '0')}"`).join(', ')}]`;
}

/** One task `t` whose matrix has `count` variants: `count` claimable tasks per job. */
export function wideMatrixPipeline(count: number): string {
  return `tasks:\n  t:\n    image: alpine:3.20\n    script: ["true"]\n    matrix:\n      n: ${values('v', count)}\n`;
}

/** One task `m` with an 8 x 8 matrix: 64 variants, the job-creation case of the issue. */
export function matrix64Pipeline(): string {
  return `tasks:\n  m:\n    image: alpine:3.20\n    script: ["echo $a $b"]\n    matrix:\n      a: ${values('a', 8)}\n      b: ${values('b', 8)}\n`;
}

export interface BenchRepository {
  path: string;
  /** Commit whose .pipeline.yml has one task with a 250-variant matrix. */
  wideSha: string;
  /** Commit whose .pipeline.yml has one task with a 64-variant (8 x 8) matrix. */
  matrix64Sha: string;
  wideTasksPerJob: number;
}

/** A real git repository with two commits, each holding the pipeline file one measurement needs. */
export async function createBenchRepository(path: string, wideTasksPerJob: number): Promise<BenchRepository> {
  await mkdir(path, { recursive: true });
  await git(path, ['init', '-q', '-b', 'main']);
  await writeFile(join(path, 'README.md'), 'Conveyor pipeline benchmark repository\n');
  await writeFile(join(path, '.pipeline.yml'), wideMatrixPipeline(wideTasksPerJob));
  await git(path, ['add', '.']);
  await git(path, ['commit', '-q', '-m', 'wide matrix']);
  const wideSha = await git(path, ['rev-parse', 'HEAD']);
  await writeFile(join(path, '.pipeline.yml'), matrix64Pipeline());
  await git(path, ['commit', '-q', '-am', '64-variant matrix']);
  const matrix64Sha = await git(path, ['rev-parse', 'HEAD']);
  return { path, wideSha, matrix64Sha, wideTasksPerJob };
}

export interface AdminCli {
  /** `extra`: more `project create` flags (--visibility, --owner, ...). */
  createProject(name: string, repo: string, extra?: string[]): Promise<{ id: string; triggerSecret: string }>;
  createWorker(name: string): Promise<{ token: string }>;
}

/** The admin CLI (`conveyor pipeline admin ... --json`) on the benchmark's database. */
export function adminCli(conveyorBin: string, env: NodeJS.ProcessEnv): AdminCli {
  async function admin(args: string[]): Promise<Record<string, unknown>> {
    const { stdout } = await run(process.execPath, [conveyorBin, 'pipeline', 'admin', ...args, '--json'], { env });
    const parsed = JSON.parse(stdout) as unknown;
    if (typeof parsed !== 'object' || parsed === null) throw new Error(`admin ${args.join(' ')} printed ${stdout}`);
    return parsed as Record<string, unknown>;
  }
  const text = (record: Record<string, unknown>, key: string): string => {
    const value = record[key];
    if (typeof value !== 'string') throw new Error(`admin output lacks '${key}': ${JSON.stringify(record)}`);
    return value;
  };
  return {
    async createProject(name, repo, extra = []) {
      const project = await admin(['project', 'create', '--name', name, '--repo', repo, ...extra]);
      return { id: text(project, 'id'), triggerSecret: text(project, 'trigger_secret') };
    },
    async createWorker(name) {
      return { token: text(await admin(['worker', 'create', '--name', name]), 'token') };
    },
  };
}

/** The commit of the checkout being measured, and whether the service's sources differ from it. */
export async function describeCheckout(root: string): Promise<{ commit: string | null; dirty: boolean }> {
  try {
    const commit = (await run('git', ['-C', root, 'rev-parse', 'HEAD'])).stdout.trim();
    const status = (await run('git', ['-C', root, 'status', '--porcelain', '--', 'packages/pipeline/src', 'packages/cli/src', 'packages/protocol/src'])).stdout;
    const changed = status.split('\n').filter((line) => line !== '' && !line.includes('packages/pipeline/src/bench/'));
    return { commit, dirty: changed.length > 0 };
  } catch {
    return { commit: null, dirty: false };
  }
}
