// The artifact glob rules of docs/pipeline-file.md ("Artifacts and workdir"). The worker applies the
// same rules again before matching (packages/worker/src/glob.ts); change both together.

export const MAX_GLOB_LENGTH = 1024;
export const MAX_GLOB_STARS = 32;

/** Why an artifact glob is refused, beyond absolute paths and `..`; undefined when it is fine. */
export function findGlobFlaw(glob: string): string | undefined {
  if (glob.length > MAX_GLOB_LENGTH) return `is ${glob.length} characters long; at most ${MAX_GLOB_LENGTH} are allowed`;
  const stars = glob.split('*').length - 1;
  if (stars > MAX_GLOB_STARS) return `has ${stars} '*'; at most ${MAX_GLOB_STARS} are allowed`;
  const chars = [...glob];
  for (let i = 0; i < chars.length; i++) {
    if (chars[i] !== '[') continue;
    const parsed = checkClass(chars, i);
    if (typeof parsed === 'string') return parsed;
    i = parsed;
  }
  return undefined;
}

/**
 * Checks the class opening at `start` and returns the index of its `]`. A `]` right after `[` (or `[!`,
 * `[^`) is a member; in `a-z` the ends must be in order; `-` first or last is a member.
 */
function checkClass(chars: readonly string[], start: number): number | string {
  let first = start + 1;
  if (chars[first] === '!' || chars[first] === '^') first++;
  let close = -1;
  for (let j = first + 1; j < chars.length; j++) {
    if (chars[j] === '/') break;
    if (chars[j] === ']') {
      close = j;
      break;
    }
  }
  if (close === -1) return `has a '[' at position ${start + 1} without its closing ']' (write [[] for a literal '[')`;
  const members = chars.slice(first, close);
  for (let k = 0; k + 2 < members.length; k++) {
    if (members[k + 1] !== '-') continue;
    const [low, high] = [members[k]!, members[k + 2]!];
    if (low > high) return `has the range ${low}-${high} in [${members.join('')}], whose start is after its end`;
    k += 2;
  }
  return close;
}
