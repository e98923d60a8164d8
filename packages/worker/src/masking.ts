/** What replaces every masked value in the task's output. */
export const MASK = Buffer.from('***');

/**
 * Replaces secret values with `***` in a byte stream that arrives in arbitrary pieces.
 *
 * A secret may be split across two reads, so the masker holds back the last `longest - 1` bytes of
 * what it has seen: they could be the start of a secret whose end has not arrived yet. Everything
 * before that tail is final and is returned at once. `end()` releases the tail.
 */
export class Masker {
  private readonly secrets: Buffer[];
  private readonly holdBack: number;
  private tail: Buffer = Buffer.alloc(0);

  constructor(values: readonly string[]) {
    // Longest first, so a secret that contains a shorter one is masked whole.
    this.secrets = [...new Set(values)]
      .filter((value) => value.length > 0)
      .map((value) => Buffer.from(value, 'utf8'))
      .sort((a, b) => b.length - a.length);
    this.holdBack = this.secrets.length === 0 ? 0 : this.secrets[0]!.length - 1;
  }

  /** Returns the masked bytes that are final; may be empty while a possible secret is pending. */
  push(chunk: Buffer): Buffer {
    if (this.secrets.length === 0) return chunk;
    const data = this.tail.length === 0 ? chunk : Buffer.concat([this.tail, chunk]);
    const { output, rest } = maskUpTo(data, this.secrets, Math.max(0, data.length - this.holdBack));
    this.tail = Buffer.from(rest); // copy: never pin the caller's (possibly large) buffer
    return output;
  }

  /** Returns whatever is still held back, masked. */
  end(): Buffer {
    const data = this.tail;
    this.tail = Buffer.alloc(0);
    return maskUpTo(data, this.secrets, data.length).output;
  }
}

/**
 * Masks every secret that starts before `limit` and returns the bytes up to the point where
 * scanning stopped. A secret starting before `limit` lies wholly inside `data`, because `limit`
 * leaves room for the longest one.
 */
function maskUpTo(data: Buffer, secrets: Buffer[], limit: number): { output: Buffer; rest: Buffer } {
  const parts: Buffer[] = [];
  let position = 0;
  for (;;) {
    const match = findEarliest(data, secrets, position);
    if (match === null || match.index >= limit) break;
    parts.push(data.subarray(position, match.index), MASK);
    position = match.index + match.length;
  }
  const cut = Math.max(position, limit);
  parts.push(data.subarray(position, cut));
  return { output: parts.length === 1 ? parts[0]! : Buffer.concat(parts), rest: data.subarray(cut) };
}

function findEarliest(data: Buffer, secrets: Buffer[], from: number): { index: number; length: number } | null {
  let best: { index: number; length: number } | null = null;
  for (const secret of secrets) {
    const index = data.indexOf(secret, from);
    // Secrets are sorted longest first, so on a tie the longer one wins.
    if (index >= 0 && (best === null || index < best.index)) best = { index, length: secret.length };
  }
  return best;
}
