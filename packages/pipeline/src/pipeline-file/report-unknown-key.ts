import { shortenKey } from './problems.js';
import type { ProblemList } from './problems.js';

/** Reports a key the format does not define, suggesting the known key it most likely misspells. */
export function reportUnknownKey(path: string, key: string, known: readonly string[], problems: ProblemList): void {
  if (key === '<<') {
    problems.add(path, 'merge keys (<<) are not supported; use an alias for the whole value instead');
    return;
  }
  const guess = guessKey(key, known);
  const hint = guess ? `did you mean "${guess}"?` : `known keys: ${known.join(', ')}`;
  problems.add(path, `unknown key "${shortenKey(key)}"; ${hint}`);
}

function guessKey(key: string, known: readonly string[]): string | undefined {
  const normalised = key.toLowerCase().replaceAll('-', '_');
  const exact = known.find((candidate) => candidate === normalised);
  if (exact) return exact;
  let best: string | undefined;
  let bestDistance = 3;
  for (const candidate of known) {
    const distance = measureEditDistance(normalised, candidate, bestDistance);
    if (distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  return best;
}

/** Levenshtein distance, giving up (returning `limit`) once it cannot be below `limit`. Keys are short. */
function measureEditDistance(a: string, b: string, limit: number): number {
  if (Math.abs(a.length - b.length) >= limit || a.length > 64) return limit;
  let previous = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const substitution = (previous[j - 1] ?? 0) + (a[i - 1] === b[j - 1] ? 0 : 1);
      current.push(Math.min((previous[j] ?? 0) + 1, (current[j - 1] ?? 0) + 1, substitution));
    }
    previous = current;
  }
  return Math.min(previous[b.length] ?? limit, limit);
}
