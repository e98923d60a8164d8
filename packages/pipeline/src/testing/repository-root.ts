import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository root (tests and benchmarks): the first directory above this file whose package.json declares workspaces. */
export function findRepositoryRoot(): string {
  let directory = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const manifest = join(directory, 'package.json');
    if (existsSync(manifest) && 'workspaces' in (JSON.parse(readFileSync(manifest, 'utf8')) as object)) return directory;
    const parent = dirname(directory);
    if (parent === directory) throw new Error('no package.json with workspaces above this file');
    directory = parent;
  }
}
