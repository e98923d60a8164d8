// Test support: real repositories made with the git CLI, independent of the machine's git config.
import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { TEST_GIT_ENV } from '@conveyor/kit/testing';

export { TEST_GIT_ENV };

/** Runs git in `cwd` and resolves with its trimmed stdout; rejects with stderr on failure. */
export function git(cwd: string, args: string[], env: NodeJS.ProcessEnv = TEST_GIT_ENV): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn('git', args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => out.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => err.push(chunk));
    child.on('error', reject);
    child.on('close', (code) => {
      if (code === 0) resolve(Buffer.concat(out).toString('utf8').trim());
      else reject(new Error(`git ${args.join(' ')} exited ${code}: ${Buffer.concat(err).toString('utf8')}`));
    });
  });
}

export async function makeTempDir(prefix: string): Promise<{ path: string; remove: () => Promise<void> }> {
  const path = await mkdtemp(join(tmpdir(), `conveyor-${prefix}-`));
  return { path, remove: () => rm(path, { recursive: true, force: true }) };
}

/** A non-bare repository on branch main with no commits. */
export async function initRepository(path: string): Promise<string> {
  await mkdir(path, { recursive: true });
  await git(path, ['init', '--quiet', '--initial-branch=main']);
  return path;
}

/** Writes the files (paths may contain directories), commits them all, returns the new commit id. */
export async function commitFiles(repo: string, files: Record<string, string | Buffer>, message = 'change'): Promise<string> {
  for (const [path, content] of Object.entries(files)) {
    const full = join(repo, path);
    await mkdir(dirname(full), { recursive: true });
    await writeFile(full, content);
  }
  await git(repo, ['add', '--all']);
  await git(repo, ['commit', '--quiet', '-m', message]);
  return git(repo, ['rev-parse', 'HEAD']);
}
