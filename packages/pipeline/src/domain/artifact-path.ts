import { maskSecrets } from './masking.js';

/** Longest stored artifact path, in characters. */
export const MAX_ARTIFACT_PATH_LENGTH = 1024;

/**
 * Turns the worker's `X-Artifact-Path` into the stored path: percent-decoded, secret values masked,
 * split on `/` and `\`, with empty, `.` and `..` segments dropped (traversal is stripped, not
 * honoured). Null when nothing usable is left or the value is malformed. Secrets are masked before the
 * split, so a secret holding a slash is still masked whole.
 */
export function sanitizeArtifactPath(raw: string, secrets: readonly string[] = []): string | null {
  let decoded: string;
  try {
    decoded = maskSecrets(decodeURIComponent(raw), secrets);
  } catch {
    return null;
  }
  // Control characters have no place in a file name and would corrupt headers on download.
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(decoded)) return null;
  const segments = decoded.split(/[\\/]+/).filter((segment) => segment !== '' && segment !== '.' && segment !== '..');
  const path = segments.join('/');
  return path.length === 0 || path.length > MAX_ARTIFACT_PATH_LENGTH ? null : path;
}
