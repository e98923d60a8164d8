/**
 * Artifact globs: part of the contract, since the pipeline-file compiler refuses the patterns the
 * worker could not match, and the worker checks again because a payload is not the compiler. One
 * module holds both the rules (findGlobFlaw) and the matcher (compileGlob), so they cannot drift.
 *
 * Matching takes time proportional to pattern length times path length (no regular expression is
 * built from a pattern, so no pattern can make matching backtrack exponentially). `*` any run of
 * characters within one name, `?` one character, `[abc]`, `[a-z]`, `[!a-z]` (or `[^a-z]`) one character
 * of a class, `**` as a whole segment any number of directories. The rules are those of the pipeline
 * file (docs/pipeline-file.md, "Artifacts and workdir").
 */

export const MAX_GLOB_LENGTH = 1024;
export const MAX_GLOB_STARS = 32;

type Token = { kind: 'char'; char: string } | { kind: 'any' } | { kind: 'star' } | { kind: 'class'; negated: boolean; ranges: [string, string][] };
/** A segment of a pattern: `**` (any number of path segments) or a list of tokens for one name. */
type Segment = { kind: 'globstar' } | { kind: 'name'; tokens: Token[] };

export interface Glob {
  test(path: string): boolean;
}

/**
 * Compiles an artifact pattern; `problem` says why a pattern is refused (absolute, `..`, too long,
 * too many `*`, a malformed `[...]` class).
 */
export function compileGlob(pattern: string): { glob: Glob; problem?: undefined } | { glob?: undefined; problem: string } {
  const normal = pattern.trim().replace(/\\/g, '/');
  if (normal === '' || normal.startsWith('/') || /^[a-zA-Z]:/.test(normal)) return { problem: 'it points outside the workdir' };
  const names = normal.split('/').filter((segment) => segment !== '' && segment !== '.');
  if (names.length === 0 || names.includes('..')) return { problem: 'it points outside the workdir' };
  const flaw = findGlobFlaw(normal);
  if (flaw !== undefined) return { problem: flaw };
  const segments: Segment[] = names.map((name) => (name === '**' ? { kind: 'globstar' } : { kind: 'name', tokens: parseSegment([...name]) }));
  // A trailing `**` means "something below", never the directory itself (`dist/**` is not the file
  // `dist`): it reads as `*/**`, at least one more name.
  if (segments[segments.length - 1]!.kind === 'globstar') segments.splice(segments.length - 1, 0, { kind: 'name', tokens: [{ kind: 'star' }] });
  return { glob: { test: (path) => matchSegments(segments, path.split('/')) } };
}

/** The limits of docs/pipeline-file.md beyond absolute paths and `..`; undefined when the pattern is fine. */
export function findGlobFlaw(pattern: string): string | undefined {
  if (pattern.length > MAX_GLOB_LENGTH) return `is ${pattern.length} characters long; at most ${MAX_GLOB_LENGTH} are allowed`;
  const stars = pattern.split('*').length - 1;
  if (stars > MAX_GLOB_STARS) return `has ${stars} '*'; at most ${MAX_GLOB_STARS} are allowed`;
  const chars = [...pattern];
  for (let i = 0; i < chars.length; i++) {
    if (chars[i] !== '[') continue;
    const parsed = parseClass(chars, i);
    if (typeof parsed === 'string') return parsed;
    i = parsed.end;
  }
  return undefined;
}

/**
 * Reads the class opening at `start`. A `]` right after `[` (or `[!`) is a member; `a-z` is a range
 * whose ends must be in order; `-` first or last is a member.
 */
function parseClass(name: readonly string[], start: number): { token: Token & { kind: 'class' }; end: number } | string {
  let i = start + 1;
  const negated = name[i] === '!' || name[i] === '^';
  if (negated) i++;
  const members: string[] = [];
  let close = -1;
  for (let j = i; j < name.length; j++) {
    if (name[j] === '/') break;
    if (name[j] === ']' && j > i) {
      close = j;
      break;
    }
    members.push(name[j]!);
  }
  if (close === -1) return `has a '[' at position ${start + 1} without its closing ']' (write [[] for a literal '[')`;
  const ranges: [string, string][] = [];
  for (let k = 0; k < members.length; k++) {
    const low = members[k]!;
    if (members[k + 1] === '-' && k + 2 < members.length) {
      const high = members[k + 2]!;
      if (low > high) return `has the range ${low}-${high} in [${members.join('')}], whose start is after its end`;
      ranges.push([low, high]);
      k += 2;
    } else {
      ranges.push([low, low]);
    }
  }
  return { token: { kind: 'class', negated, ranges }, end: close };
}

function parseSegment(name: readonly string[]): Token[] {
  const tokens: Token[] = [];
  for (let i = 0; i < name.length; i++) {
    const char = name[i]!;
    if (char === '*') {
      // Consecutive stars inside a name are one star.
      if (tokens[tokens.length - 1]?.kind !== 'star') tokens.push({ kind: 'star' });
    } else if (char === '?') {
      tokens.push({ kind: 'any' });
    } else if (char === '[') {
      const parsed = parseClass(name, i);
      // findGlobFlaw refused malformed classes before parsing.
      if (typeof parsed === 'string') throw new Error(parsed);
      tokens.push(parsed.token);
      i = parsed.end;
    } else {
      tokens.push({ kind: 'char', char });
    }
  }
  return tokens;
}

function matchesOne(token: Token, char: string): boolean {
  if (token.kind === 'any') return true;
  if (token.kind === 'char') return token.char === char;
  if (token.kind !== 'class') return false;
  const inside = token.ranges.some(([low, high]) => char >= low && char <= high);
  return inside !== token.negated;
}

/**
 * The classic wildcard match: on a mismatch, go back only to the last star and let it take one more
 * element. Earlier stars never need revisiting, since the last one can absorb anything they could,
 * so the work is at most pattern length times subject length. Used for characters within a name and,
 * with `**` as the star, for names within a path.
 */
function wildcardMatch<P, S>(pattern: readonly P[], subject: readonly S[], isStar: (p: P) => boolean, matches: (p: P, s: S) => boolean): boolean {
  let p = 0;
  let s = 0;
  let starAt = -1;
  let resumeAt = 0;
  while (s < subject.length) {
    if (p < pattern.length && isStar(pattern[p]!)) {
      starAt = p++;
      resumeAt = s;
    } else if (p < pattern.length && matches(pattern[p]!, subject[s]!)) {
      p++;
      s++;
    } else if (starAt !== -1) {
      p = starAt + 1;
      s = ++resumeAt;
    } else {
      return false;
    }
  }
  while (p < pattern.length && isStar(pattern[p]!)) p++;
  return p === pattern.length;
}

function matchSegments(segments: readonly Segment[], parts: readonly string[]): boolean {
  return wildcardMatch(
    segments,
    parts,
    (segment) => segment.kind === 'globstar',
    (segment, part) => segment.kind === 'name' && wildcardMatch(segment.tokens, [...part], (token) => token.kind === 'star', matchesOne),
  );
}
