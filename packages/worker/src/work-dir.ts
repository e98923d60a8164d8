import { randomBytes } from 'node:crypto';
import { chmod, lstat, mkdir, readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { ConfigError } from './config.js';

/** Task directories are `task-<id>-<attempt>-<random>`; nothing else in the work directory is touched. */
const TASK_DIR = /^task-[A-Za-z0-9_-]{1,64}-\d+-[0-9a-f]{6}$/;

/** A fresh, unpredictable name for one attempt of a task below the work directory. */
export function taskDirectoryName(taskId: string, attempt: number): string {
  return `task-${taskId.replace(/[^a-zA-Z0-9_-]/g, '_').slice(0, 64)}-${attempt}-${randomBytes(3).toString('hex')}`;
}

/**
 * Makes sure the work directory is the worker's own before anything secret is written below it: it is
 * created 0700 when missing; an existing one must be a real directory (not a link), owned by the
 * worker's user and writable by no one else, or the worker refuses to start. Task directories a
 * previous run left behind (a crash, SIGKILL, or `--keep-work`) hold scripts with secrets and are
 * removed. With `--run-as`, others get search permission (x) only, so the script's user can reach
 * its own task directory without listing the others.
 */
export async function prepareWorkDir(dir: string, options: { runAs: boolean }): Promise<{ removed: number }> {
  const where = `--work-dir (CONVEYOR_WORKER_WORK_DIR) ${dir}`;
  try {
    await mkdir(dir, { recursive: true, mode: 0o700 });
  } catch (error) {
    throw new ConfigError(`${where} cannot be created (${(error as NodeJS.ErrnoException).code ?? (error as Error).message}); give a directory the worker's user may create or owns`);
  }
  const stat = await lstat(dir);
  if (stat.isSymbolicLink()) throw new ConfigError(`${where} is a symbolic link; give the directory it points to`);
  if (!stat.isDirectory()) throw new ConfigError(`${where} is not a directory`);
  const uid = process.getuid?.();
  if (uid !== undefined && stat.uid !== uid) {
    throw new ConfigError(`${where} belongs to uid ${stat.uid}, not to this worker's user (uid ${uid}); use a directory the worker's user owns (it is created 0700 when missing)`);
  }
  if ((stat.mode & 0o022) !== 0) {
    throw new ConfigError(`${where} can be written by other users (mode ${(stat.mode & 0o7777).toString(8)}); run chmod go-w on it or use another directory`);
  }
  if (options.runAs && (stat.mode & 0o011) !== 0o011) await chmod(dir, (stat.mode & 0o7777) | 0o011);
  let removed = 0;
  for (const name of await readdir(dir)) {
    if (!TASK_DIR.test(name)) continue;
    await rm(join(dir, name), { recursive: true, force: true });
    removed += 1;
  }
  return { removed };
}
