/** What replaces every masked value in the task's output. */
export const MASK = Buffer.from('***');

/**
 * Replaces secret values with `***` in a byte stream that arrives in arbitrary pieces.
 *
 * A secret may be split across two reads, so the masker holds back the end of what it has seen only
 * when that end could be the start of a secret (`...tok` when a secret is `token123`). Everything else
 * is final and returned at once, so output that holds nothing like a secret never waits. `end()`
 * releases what is held.
 */
export class Masker {
  private readonly secrets: Buffer[];
  private tail: Buffer = Buffer.alloc(0);

  constructor(values: readonly string[]) {
    // Longest first, so a secret that contains a shorter one is masked whole.
    this.secrets = [...new Set(values)]
      .filter((value) => value.length > 0)
      .map((value) => Buffer.from(value, 'utf8'))
      .sort((a, b) => b.length - a.length);
  }

  /** Returns the masked bytes that are final; may be empty while a possible secret is pending. */
  push(chunk: Buffer): Buffer {
    if (this.secrets.length === 0) return chunk;
    const data = this.tail.length === 0 ? chunk : Buffer.concat([this.tail, chunk]);
    const { output, rest } = mask(data, this.secrets, true);
    this.tail = Buffer.from(rest); // copy: never pin the caller's (possibly large) buffer
    return output;
  }

  /** Returns whatever is still held back, masked. */
  end(): Buffer {
    const data = this.tail;
    this.tail = Buffer.alloc(0);
    return mask(data, this.secrets, false).output;
  }

  /** Bytes held back because they could start a secret. */
  get pending(): number {
    return this.tail.length;
  }
}

/**
 * Masks every whole secret in `data`. With `holdPartial`, scanning stops where the rest of `data` is
 * the beginning of a secret (the next read may complete it); those bytes are returned as `rest`. A
 * whole secret is masked only when it starts before that point: a longer secret starting at the same
 * place might still complete.
 */
function mask(data: Buffer, secrets: Buffer[], holdPartial: boolean): { output: Buffer; rest: Buffer } {
  const parts: Buffer[] = [];
  let position = 0;
  for (;;) {
    const hold = holdPartial ? findPartialStart(data, secrets, position) : data.length;
    const match = findEarliest(data, secrets, position);
    if (match === null || match.index >= hold) {
      parts.push(data.subarray(position, hold));
      return { output: parts.length === 1 ? parts[0]! : Buffer.concat(parts), rest: data.subarray(hold) };
    }
    parts.push(data.subarray(position, match.index), MASK);
    position = match.index + match.length;
  }
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

/**
 * The earliest index at or after `from` where the rest of `data` is a proper beginning of some secret
 * (shorter than the secret), or `data.length` when there is none.
 */
function findPartialStart(data: Buffer, secrets: Buffer[], from: number): number {
  let start = data.length;
  for (const secret of secrets) {
    const longest = Math.min(secret.length - 1, data.length - from);
    // Candidates begin with the secret's first byte; try the longest suffix first.
    for (let index = data.indexOf(secret[0]!, data.length - longest); index !== -1 && index < start; index = data.indexOf(secret[0]!, index + 1)) {
      if (data.subarray(index).equals(secret.subarray(0, data.length - index))) {
        start = index;
        break;
      }
    }
  }
  return start;
}
