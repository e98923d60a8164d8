// A pass over the whole log in 1 MiB ranges that keeps nothing but what it was asked for: the line
// count of each chunk (so every line gets its number) and, when searching, the offsets of the matches.
// The page never holds more than one range of it at a time.
import { CHUNK_BYTES, countLineStarts, type LogStore } from './log-store';
import { readLogRange, type LogAddress } from './log-source';

export const SCAN_BYTES = 4 * CHUNK_BYTES;
/** Matches remembered; a search finding more says so ("50000+"). */
export const MAX_MATCHES = 50_000;

export interface ScanProgress {
  scanned: number;
  size: number;
}

const LOWER = new Uint8Array(256).map((_, byte) => (byte >= 65 && byte <= 90 ? byte + 32 : byte));

/** ASCII letters compared without case; other bytes (UTF-8 included) exactly. */
function lowerCase(bytes: Uint8Array): Uint8Array {
  const out = new Uint8Array(bytes.length);
  for (let i = 0; i < bytes.length; i += 1) out[i] = LOWER[bytes[i] as number] as number;
  return out;
}

/** Offsets (relative to `bytes`) where `needle` starts, from `from` on. */
export function findAll(bytes: Uint8Array, needle: Uint8Array, from = 0): number[] {
  const found: number[] = [];
  const first = needle[0];
  if (first === undefined) return found;
  const haystack = lowerCase(bytes);
  for (let at = haystack.indexOf(first, from); at !== -1 && at + needle.length <= haystack.length; at = haystack.indexOf(first, at + 1)) {
    let same = true;
    for (let i = 1; i < needle.length; i += 1) {
      if (haystack[at + i] !== needle[i]) {
        same = false;
        break;
      }
    }
    if (same) found.push(at);
  }
  return found;
}

export function encodeQuery(query: string): Uint8Array {
  return lowerCase(new TextEncoder().encode(query));
}

/**
 * Reads the log from byte 0 to `size` in SCAN_BYTES ranges, recording each chunk's line count in the
 * store; with a `needle`, returns the match offsets (at most MAX_MATCHES) and whether there were more.
 */
export async function scanLog(
  address: LogAddress,
  store: LogStore,
  size: number,
  needle: Uint8Array | null,
  progress: (progress: ScanProgress) => void,
  signal: AbortSignal,
): Promise<{ matches: number[]; more: boolean }> {
  const matches: number[] = [];
  let more = false;
  // The bytes before each range: one to tell whether its first byte starts a line, and enough for a
  // match that straddles two ranges.
  const back = Math.max(1, (needle?.length ?? 1) - 1);
  for (let start = 0; start < size; start += SCAN_BYTES) {
    if (signal.aborted) throw new DOMException('aborted', 'AbortError');
    const end = Math.min(size, start + SCAN_BYTES);
    const from = Math.max(0, start - back);
    const read = await readLogRange(address, `${from}-${end - 1}`, signal);
    const bytes = read.bytes;
    const lead = start - read.start;
    for (let chunk = start / CHUNK_BYTES; chunk * CHUNK_BYTES < end; chunk += 1) {
      const at = chunk * CHUNK_BYTES - read.start;
      if (store.isLoaded(chunk)) continue;
      store.putCount(chunk, countLineStarts(chunk, bytes.subarray(at, Math.min(at + CHUNK_BYTES, bytes.length)), at > 0 ? bytes[at - 1] : undefined, size));
    }
    if (needle !== null && !more) {
      for (const offset of findAll(bytes, needle)) {
        // A match ending before this range was found in the previous one.
        if (offset + needle.length <= lead && start > 0) continue;
        if (matches.length === MAX_MATCHES) {
          more = true;
          break;
        }
        matches.push(read.start + offset);
      }
    }
    progress({ scanned: end, size });
  }
  return { matches, more };
}
