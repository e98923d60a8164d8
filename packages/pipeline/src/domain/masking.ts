import type { PipelineDeps } from './deps.js';

/** What replaces a secret value; the worker masks its log stream with the same three characters. */
export const MASK = '***';

/**
 * Replaces every occurrence of each secret value in text the worker sent (an error string, an artifact
 * path) before it becomes data others read. Longest first, so a secret that contains a shorter one is
 * masked whole.
 */
export function maskSecrets(text: string, secrets: readonly string[]): string {
  let masked = text;
  for (const secret of [...secrets].filter((value) => value !== '').sort((a, b) => b.length - a.length)) {
    masked = masked.split(secret).join(MASK);
  }
  return masked;
}

/**
 * The values of the project's secret variables now. Values are read at claim time, so a secret rotated
 * during an attempt is masked by its new value only; the worker masked its output with the old one.
 */
export async function readSecretValues(deps: PipelineDeps, projectId: string): Promise<string[]> {
  return (await deps.store.listVariables(projectId)).filter((variable) => variable.secret).map((variable) => variable.value);
}
