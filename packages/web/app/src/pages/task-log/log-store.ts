// The log as the viewer knows it: fixed-size byte chunks fetched by range (an LRU keeps memory bounded),
// and how many lines start in each chunk, kept after a chunk is dropped. Rows of the virtual list are
// lines; a chunk whose lines were never counted is given an estimate from the average line length of
// the counted ones, refined when it loads. See docs/web.md, "Task log".

/** Bytes per chunk: the unit of fetching, counting and eviction. */
export const CHUNK_BYTES = 256 * 1024;
/** Chunks kept in memory (the last one, which live output extends, is kept by use). */
export const MAX_CHUNKS = 24;
/** Bytes of one line that are shown; a longer line ends with a note (the raw download has it all). */
export const LINE_CAP = 8 * 1024;
const DEFAULT_BYTES_PER_LINE = 80;
const NEWLINE = 10;

interface Chunk {
  /** Room for CHUNK_BYTES; `length` of them are the log's bytes from `index * CHUNK_BYTES`. */
  bytes: Uint8Array;
  length: number;
  /** Absolute offsets of the lines that start inside this chunk, ascending. */
  starts: number[];
}

/** Where a row of the list is: its chunk, the line's index in that chunk, and its start when known. */
export interface RowPlace {
  chunk: number;
  index: number;
  /** The line's first byte, or null while its chunk is not loaded. */
  start: number | null;
}

export interface LineBytes {
  bytes: Uint8Array;
  /** Bytes of the line past LINE_CAP (not shown). */
  cut: number;
  /** False when a later chunk the line runs into is not loaded yet. */
  complete: boolean;
}

export class LogStore {
  size = 0;
  private readonly chunks = new Map<number, Chunk>();
  /** Lines starting in each chunk, for every chunk ever loaded or counted. */
  private readonly counts = new Map<number, number>();
  private cumulative: number[] = [0];
  /** Bytes and lines of a read used only to estimate the line length (the tail read, before any whole chunk is counted). */
  private sampleBytes = 0;
  private sampleLines = 0;
  private exactUpTo = 0;

  get chunkCount(): number {
    return Math.ceil(this.size / CHUNK_BYTES);
  }

  get totalRows(): number {
    return this.cumulative[this.chunkCount] ?? 0;
  }

  isLoaded(chunk: number): boolean {
    return this.chunks.has(chunk);
  }

  hasCount(chunk: number): boolean {
    return this.counts.has(chunk);
  }

  /** Chunks held in memory now (for the memory cap's test and the status line). */
  get loadedChunks(): number {
    return this.chunks.size;
  }

  /** The log grew (or its size became known); rows are re-estimated. */
  setSize(size: number): void {
    if (size === this.size) return;
    this.size = size;
    this.recount();
  }

  /**
   * Stores the bytes at `start`: whole chunks (the one at the end of the log may be partial), and bytes
   * appended at the end of a loaded chunk (live output). A piece of a chunk that can be neither is
   * dropped. The byte before a chunk decides whether its first byte starts a line, so range reads ask
   * for one byte more at the front.
   */
  put(start: number, bytes: Uint8Array): void {
    const end = start + bytes.length;
    if (end > this.size) this.size = end;
    for (let index = Math.floor(start / CHUNK_BYTES); index * CHUNK_BYTES < end; index += 1) {
      const chunkStart = index * CHUNK_BYTES;
      const chunkEnd = Math.min(chunkStart + CHUNK_BYTES, this.size);
      const existing = this.chunks.get(index);
      if (existing !== undefined && start <= chunkStart + existing.length && end > chunkStart + existing.length) {
        this.append(index, existing, bytes.subarray(chunkStart + existing.length - start, Math.min(end, chunkStart + CHUNK_BYTES) - start));
      } else if (existing === undefined && start <= chunkStart && (end >= chunkEnd || end === this.size)) {
        const before = start < chunkStart ? bytes[chunkStart - 1 - start] : this.byteBefore(index);
        if (before === undefined && index > 0) continue;
        this.create(index, bytes.subarray(chunkStart - start, Math.min(end, chunkStart + CHUNK_BYTES) - start), index === 0 || before === NEWLINE);
      }
    }
    this.evict();
    this.recount();
  }

  /** Records line counts of chunks read by a scan (search, counting) without keeping their bytes. */
  putCount(chunk: number, lines: number): void {
    if (this.counts.get(chunk) === lines) return;
    if (this.chunks.has(chunk)) return;
    this.counts.set(chunk, lines);
    this.recount();
  }

  private byteBefore(index: number): number | undefined {
    const previous = this.chunks.get(index - 1);
    return previous !== undefined && previous.length === CHUNK_BYTES ? previous.bytes[CHUNK_BYTES - 1] : undefined;
  }

  private create(index: number, bytes: Uint8Array, startsLine: boolean): void {
    const chunk: Chunk = { bytes: new Uint8Array(CHUNK_BYTES), length: 0, starts: startsLine && bytes.length > 0 ? [index * CHUNK_BYTES] : [] };
    this.chunks.set(index, chunk);
    this.append(index, chunk, bytes);
    if (!startsLine) chunk.starts = chunk.starts.filter((offset) => offset !== index * CHUNK_BYTES);
  }

  private append(index: number, chunk: Chunk, bytes: Uint8Array): void {
    const base = index * CHUNK_BYTES;
    const from = chunk.length;
    chunk.bytes.set(bytes, from);
    chunk.length += bytes.length;
    // A newline starts a line at the next byte, once that byte exists (a final newline starts none).
    if (from === 0 && chunk.starts.length === 0 && index > 0 && this.byteBefore(index) === NEWLINE) chunk.starts.push(base);
    if (from === 0 && index === 0 && chunk.starts.length === 0) chunk.starts.push(0);
    for (let i = Math.max(from - 1, 0); i < chunk.length - 1; i += 1) {
      if (chunk.bytes[i] === NEWLINE) chunk.starts.push(base + i + 1);
    }
    this.counts.set(index, chunk.starts.length);
    // The next chunk's first line depends on this chunk's last byte.
    if (chunk.length === CHUNK_BYTES && chunk.bytes[CHUNK_BYTES - 1] === NEWLINE) {
      const next = this.chunks.get(index + 1);
      if (next !== undefined && next.starts[0] !== base + CHUNK_BYTES && next.length > 0) {
        next.starts.unshift(base + CHUNK_BYTES);
        this.counts.set(index + 1, next.starts.length);
      }
    }
    this.touch(index);
  }

  /** Marks a chunk as just used (the LRU's order is the Map's insertion order). */
  touch(index: number): void {
    const chunk = this.chunks.get(index);
    if (chunk === undefined) return;
    this.chunks.delete(index);
    this.chunks.set(index, chunk);
  }

  private evict(): void {
    const last = this.chunkCount - 1;
    for (const index of this.chunks.keys()) {
      if (this.chunks.size <= MAX_CHUNKS) break;
      if (index !== last) this.chunks.delete(index);
    }
  }

  private bytesIn(index: number): number {
    return Math.max(0, Math.min(CHUNK_BYTES, this.size - index * CHUNK_BYTES));
  }

  /** Takes a read's newlines as a sample of the log's line length (the tail read: a chunk's worth, even when the last chunk is short). */
  sample(bytes: Uint8Array): void {
    let lines = 0;
    for (let i = bytes.indexOf(NEWLINE); i !== -1; i = bytes.indexOf(NEWLINE, i + 1)) lines += 1;
    this.sampleBytes += bytes.length;
    this.sampleLines += lines;
    this.recount();
  }

  private bytesPerLine(): number {
    let bytes = this.sampleBytes;
    let lines = this.sampleLines;
    for (const [index, count] of this.counts) {
      // Only whole chunks: the short last one (a few lines after a huge log) says little about the rest.
      if (this.bytesIn(index) === CHUNK_BYTES) {
        bytes += CHUNK_BYTES;
        lines += count;
      }
    }
    return lines > 0 ? Math.max(1, bytes / lines) : DEFAULT_BYTES_PER_LINE;
  }

  /** Estimated or counted rows of one chunk. */
  rowsIn(index: number): number {
    return this.counts.get(index) ?? Math.max(1, Math.round(this.bytesIn(index) / this.bytesPerLine()));
  }

  private recount(): void {
    const total = this.chunkCount;
    const perLine = this.bytesPerLine();
    const cumulative = new Array<number>(total + 1);
    cumulative[0] = 0;
    let exact = 0;
    let stillExact = true;
    for (let index = 0; index < total; index += 1) {
      const counted = this.counts.get(index);
      if (counted === undefined) stillExact = false;
      else if (stillExact) exact = index + 1;
      const rows = counted ?? Math.max(1, Math.round(this.bytesIn(index) / perLine));
      cumulative[index + 1] = (cumulative[index] ?? 0) + rows;
    }
    this.cumulative = cumulative;
    this.exactUpTo = exact;
  }

  /** The row a chunk's first line has. */
  firstRowOf(chunk: number): number {
    return this.cumulative[chunk] ?? this.totalRows;
  }

  /** Which chunk and line a row is. */
  place(row: number): RowPlace | null {
    if (row < 0 || row >= this.totalRows) return null;
    let low = 0;
    let high = this.chunkCount - 1;
    while (low < high) {
      const middle = (low + high + 1) >> 1;
      if ((this.cumulative[middle] ?? 0) <= row) low = middle;
      else high = middle - 1;
    }
    const index = row - (this.cumulative[low] ?? 0);
    const chunk = this.chunks.get(low);
    return { chunk: low, index, start: chunk?.starts[index] ?? null };
  }

  /** The line number (1-based) of a row, when every line before it has been counted; else null. */
  lineNumber(place: RowPlace): number | null {
    if (place.chunk >= this.exactUpTo) return null;
    return (this.cumulative[place.chunk] ?? 0) + place.index + 1;
  }

  /** Every chunk up to `chunk` (exclusive) is counted. */
  countedBefore(chunk: number): boolean {
    return chunk <= this.exactUpTo;
  }

  /** The row of line `line` (1-based), when the lines before it are counted. */
  rowOfLine(line: number): number | null {
    if (line < 1) return null;
    for (let index = 0; index < this.exactUpTo; index += 1) {
      if ((this.cumulative[index + 1] ?? 0) >= line) return line - 1;
    }
    return null;
  }

  /** The row of the line holding byte `offset`, when its chunk (and the one its line starts in) is loaded. */
  rowOfOffset(offset: number): number | null {
    for (let index = Math.floor(offset / CHUNK_BYTES); index >= 0; index -= 1) {
      const chunk = this.chunks.get(index);
      if (chunk === undefined) return null;
      let found = -1;
      for (let i = chunk.starts.length - 1; i >= 0; i -= 1) {
        if ((chunk.starts[i] ?? 0) <= offset) {
          found = i;
          break;
        }
      }
      if (found >= 0) return (this.cumulative[index] ?? 0) + found;
    }
    return null;
  }

  /** The bytes of the line starting at `start`, up to its newline (excluded) or LINE_CAP. */
  lineBytes(start: number): LineBytes {
    const parts: Uint8Array[] = [];
    let taken = 0;
    let offset = start;
    let complete = true;
    let cut = 0;
    while (offset < this.size) {
      const index = Math.floor(offset / CHUNK_BYTES);
      const chunk = this.chunks.get(index);
      if (chunk === undefined) {
        complete = false;
        break;
      }
      const from = offset - index * CHUNK_BYTES;
      let end = chunk.bytes.indexOf(NEWLINE, from);
      const ended = end !== -1 && end < chunk.length;
      if (!ended) end = chunk.length;
      const room = LINE_CAP - taken;
      const piece = chunk.bytes.subarray(from, Math.min(end, from + Math.max(room, 0)));
      if (piece.length > 0) parts.push(piece);
      taken += piece.length;
      if (end - from > piece.length) cut += end - from - piece.length;
      if (ended) break;
      offset = index * CHUNK_BYTES + chunk.length;
      if (chunk.length < CHUNK_BYTES) break;
    }
    const bytes = parts.length === 1 ? (parts[0] as Uint8Array) : concat(parts, taken);
    return { bytes, cut, complete };
  }
}

function concat(parts: Uint8Array[], length: number): Uint8Array {
  const out = new Uint8Array(length);
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}

/** Lines starting in chunk `index` of a scanned range: `before` is the byte preceding the chunk (undefined at 0). */
export function countLineStarts(index: number, bytes: Uint8Array, before: number | undefined, logSize: number): number {
  let lines = index === 0 || before === NEWLINE ? (bytes.length > 0 ? 1 : 0) : 0;
  const base = index * CHUNK_BYTES;
  for (let i = bytes.indexOf(NEWLINE); i !== -1; i = bytes.indexOf(NEWLINE, i + 1)) {
    if (i < bytes.length - 1 && base + i + 1 < logSize) lines += 1;
  }
  return lines;
}
