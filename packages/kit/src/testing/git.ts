import { spawnSync } from 'node:child_process';

/** git's environment in tests: a fixed identity, and no system or user configuration of the machine. */
export const TEST_GIT_ENV: NodeJS.ProcessEnv = {
  ...process.env,
  GIT_AUTHOR_NAME: 'Test Author',
  GIT_AUTHOR_EMAIL: 'author@example.test',
  GIT_COMMITTER_NAME: 'Test Committer',
  GIT_COMMITTER_EMAIL: 'committer@example.test',
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_CONFIG_GLOBAL: '/dev/null',
};

/** Runs git in `cwd` with TEST_GIT_ENV and returns its trimmed stdout; throws with git's stderr on failure. */
export function gitSync(cwd: string, args: string[]): string {
  const result = spawnSync('git', args, { cwd, env: TEST_GIT_ENV, encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`git ${args.join(' ')}: ${result.stderr}`);
  return result.stdout.trim();
}
