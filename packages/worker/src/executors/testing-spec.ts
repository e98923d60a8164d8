import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ServiceSpec } from '@conveyor/protocol';
import { buildScript } from '../script.js';
import type { ExecutionSpec } from './executor.js';

/** A task directory with a generated script, and the output the executor produced (for tests). */
export interface TestRun {
  spec: ExecutionSpec;
  output: () => string;
  dispose: () => Promise<void>;
}

export async function prepareRun(lines: string[], env: Record<string, string>, services: ServiceSpec[] = [], image = 'unused'): Promise<TestRun> {
  const root = await mkdtemp(join(tmpdir(), 'conveyor-exec-'));
  const hostDir = join(root, 'src');
  const scriptDir = join(root, 'script');
  await mkdir(hostDir);
  await mkdir(scriptDir, { mode: 0o700 });
  await writeFile(join(hostDir, 'input.txt'), 'from the source tree\n');
  await writeFile(join(scriptDir, 'script.sh'), buildScript(lines, env).text, { mode: 0o600 });
  const chunks: Buffer[] = [];
  const spec: ExecutionSpec = {
    taskId: 'test-task',
    image,
    workdir: '/builds/project',
    hostDir,
    scriptDir,
    scriptName: 'script.sh',
    services,
    output: async (chunk) => void chunks.push(chunk),
    note: async (text) => void chunks.push(Buffer.from(`${text}\n`)),
  };
  return { spec, output: () => Buffer.concat(chunks).toString(), dispose: () => rm(root, { recursive: true, force: true }) };
}
