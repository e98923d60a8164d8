import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** The secret variable the demo pipeline echoes; the worker masks its value in the log. */
export const DEMO_SECRET_NAME = 'DEMO_DEPLOY_TOKEN';
export const DEMO_BRANCH = 'refs/heads/main';

/**
 * The demo's pipeline: a build that keeps an artifact, a test matrix that needs it, and a deploy that
 * needs the tests and echoes a secret. No image and only sh, coreutils and git's checkout: the local
 * shell worker runs it on a bare machine. `arch` is this machine's, the one the worker offers.
 */
export function demoPipeline(arch: string): string {
  const archLine = arch === 'amd64' ? '' : `    arch: ${arch}\n`;
  return `# The demo pipeline of \`conveyor dev\`, run by its local shell worker (sh and coreutils only).
# Edit it, commit, and start a job: POST /api/v1/projects/demo/jobs/start {"ref": "main"}.
env:
  GREETING: hello from conveyor dev
tasks:
  build:
${archLine}    script:
      - mkdir -p dist
      - printf '%s, built at %s\\n' "$GREETING" "$(date -u +%Y-%m-%dT%H:%M:%SZ)" > dist/hello.txt
      - cat dist/hello.txt
    artifacts: ["dist/*"]
  test:
    needs: [build]
${archLine}    matrix:
      shard: ["1", "2"]
    script:
      - echo "running test shard $shard of 2"
      - test -f .pipeline.yml
  deploy:
    needs: [test]
${archLine}    script:
      - echo "deploying with token $${DEMO_SECRET_NAME}"
`;
}

/** This machine's architecture under the names workers offer (the worker's own default). */
export function machineArch(): string {
  const names: Record<string, string> = { x64: 'amd64', arm64: 'arm64', arm: 'arm', ia32: '386' };
  return names[process.arch] ?? process.arch;
}

/** git with an identity and no signing of its own, so the user's git configuration is neither needed nor used. */
function git(cwd: string, args: string[]): string {
  const identity = ['-c', 'user.name=Conveyor dev', '-c', 'user.email=dev@conveyor.invalid', '-c', 'commit.gpgsign=false', '-c', 'core.hooksPath=/dev/null'];
  const result = spawnSync('git', [...identity, ...args], { cwd, encoding: 'utf8' });
  if (result.error !== undefined) throw new Error(`git could not be run (${result.error.message}); install git and start \`conveyor dev\` again`);
  if (result.status !== 0) throw new Error(`git ${args.join(' ')} failed in ${cwd}: ${result.stderr.trim()}`);
  return result.stdout.trim();
}

/**
 * The demo repository at `dir` with one commit on `main` holding the pipeline file; made once (an existing
 * repository is kept as its owner left it). Returns its HEAD commit.
 */
export function ensureDemoRepository(dir: string, arch: string): string {
  if (!existsSync(join(dir, '.git'))) {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    git(dir, ['init', '-q']);
    // Not `init -b`: older gits lack it, and the user's init.defaultBranch must not decide the demo's branch.
    git(dir, ['symbolic-ref', 'HEAD', DEMO_BRANCH]);
    writeFileSync(join(dir, '.pipeline.yml'), demoPipeline(arch));
    writeFileSync(join(dir, 'README.md'), '# demo\n\nThe repository of the `demo` project that `conveyor dev` made.\n');
    git(dir, ['add', '--all']);
    git(dir, ['commit', '-q', '-m', 'Demo pipeline: build, a test matrix, deploy with a masked secret']);
  }
  return git(dir, ['rev-parse', 'HEAD']);
}
