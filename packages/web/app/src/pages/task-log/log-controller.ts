// Everything the log view does that is not drawing: the tail read, the live follow, loading the chunks
// the view shows, counting lines up to a wanted one, and search. The view subscribes and re-renders.
import { ApiError } from '../../api/client';
import { scanLog, encodeQuery, MAX_MATCHES, type ScanProgress } from './log-scan';
import { CHUNK_BYTES, LogStore } from './log-store';
import { followLog, readLogRange, type LogAddress } from './log-source';

export type LiveState = 'idle' | 'following' | 'reconnecting' | 'ended';

export interface SearchState {
  query: string;
  /** Offsets of the matches found so far. */
  matches: number[];
  more: boolean;
  /** Index of the current match, or -1. */
  current: number;
  progress: ScanProgress | null;
  done: boolean;
  error: unknown;
}

export class LogController {
  readonly store = new LogStore();
  /** False until the tail is in. */
  ready = false;
  error: unknown = null;
  live: LiveState = 'idle';
  search: SearchState | null = null;
  /** The attempt the follow reported, when following. */
  followedAttempt: number | null = null;
  private readonly loading = new Set<number>();
  private readonly listeners = new Set<() => void>();
  private stopFollow: (() => void) | null = null;
  private readonly abort = new AbortController();
  private searchAbort: AbortController | null = null;
  private scheduled = false;

  constructor(
    readonly address: LogAddress,
    private readonly onEnd: () => void,
  ) {}

  subscribe(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Tells the view once per frame, however many chunks and events arrived in it. */
  private changed(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    requestAnimationFrame(() => {
      this.scheduled = false;
      for (const listener of this.listeners) listener();
    });
  }

  private wantLive: boolean | null = null;

  /**
   * Reads the tail at once (not waiting for the task's read, which decides whether to follow). Two
   * chunks and the byte before them: the last chunk may hold only a few lines, and the screen above
   * them must not wait for a second read.
   */
  async open(): Promise<void> {
    try {
      const tail = await readLogRange(this.address, `-${2 * CHUNK_BYTES + 1}`, this.abort.signal);
      this.store.setSize(tail.size);
      this.store.put(tail.start, tail.bytes);
      this.store.sample(tail.bytes);
      this.ready = true;
      if (this.wantLive !== null) this.setLive(this.wantLive);
    } catch (error) {
      if (this.abort.signal.aborted) return;
      this.error = error;
    }
    this.changed();
  }

  /** Follows the log from what is loaded when `live` (the task is unfinished), once; else the log is final. */
  setLive(live: boolean): void {
    this.wantLive = live;
    if (!this.ready || this.live !== 'idle' || this.error !== null) return;
    if (live) this.follow(this.store.size);
    else this.live = 'ended';
    this.changed();
  }

  private follow(offset: number): void {
    this.live = 'following';
    this.stopFollow = followLog(this.address, offset, {
      attempt: (attempt) => {
        this.followedAttempt = attempt;
      },
      data: (start, bytes) => {
        this.live = 'following';
        this.store.put(start, bytes);
        this.changed();
      },
      end: (size) => {
        this.store.setSize(Math.max(size, this.store.size));
        this.live = 'ended';
        this.stopFollow = null;
        this.changed();
        this.onEnd();
      },
      interrupted: (closed) => {
        this.live = closed ? 'idle' : 'reconnecting';
        if (closed) this.error = new ApiError(0, 'network', 'Following the log stopped: the server closed the stream. Reload the page to follow it again.', null);
        this.changed();
      },
    });
  }

  /** Loads a chunk the view wants (with the byte before it, which says whether it starts a line). */
  ensure(chunk: number): void {
    if (chunk < 0 || chunk >= this.store.chunkCount || this.store.isLoaded(chunk) || this.loading.has(chunk)) return;
    this.loading.add(chunk);
    const from = Math.max(0, chunk * CHUNK_BYTES - 1);
    const to = Math.min(this.store.size, (chunk + 1) * CHUNK_BYTES) - 1;
    readLogRange(this.address, `${from}-${to}`, this.abort.signal)
      .then((read) => {
        this.store.put(read.start, read.bytes);
        this.changed();
      })
      .catch((error: unknown) => {
        if (!this.abort.signal.aborted) {
          this.error = error;
          this.changed();
        }
      })
      .finally(() => this.loading.delete(chunk));
  }

  /** Loads chunks from the start until line `line` is counted and loaded; its row, or null past the end. */
  async findLine(line: number): Promise<number | null> {
    const store = this.store;
    for (let chunk = 0; chunk < store.chunkCount; chunk += 1) {
      const row = store.rowOfLine(line);
      if (row !== null) {
        const place = store.place(row);
        if (place !== null && !store.isLoaded(place.chunk)) await this.load(place.chunk);
        return row;
      }
      if (!store.hasCount(chunk)) await this.load(chunk);
    }
    return store.rowOfLine(line);
  }

  /** The row of the line holding byte `offset`, loading what it needs. */
  async findOffset(offset: number): Promise<number | null> {
    for (let attempt = 0; attempt < 64; attempt += 1) {
      const row = this.store.rowOfOffset(offset);
      if (row !== null) return row;
      // The line may start in an earlier chunk: load backwards until its start is in.
      let chunk = Math.floor(offset / CHUNK_BYTES);
      while (chunk > 0 && this.store.isLoaded(chunk)) chunk -= 1;
      await this.load(chunk);
    }
    return null;
  }

  private async load(chunk: number): Promise<void> {
    const from = Math.max(0, chunk * CHUNK_BYTES - 1);
    const to = Math.min(this.store.size, (chunk + 1) * CHUNK_BYTES) - 1;
    const read = await readLogRange(this.address, `${from}-${to}`, this.abort.signal);
    this.store.put(read.start, read.bytes);
    this.changed();
  }

  /** Counts every line (no search), so every line gets its number. */
  async countAll(): Promise<void> {
    await this.runScan('');
  }

  /** Searches the whole log, range by range; an empty query clears the search. */
  async find(query: string): Promise<void> {
    this.searchAbort?.abort();
    if (query === '') {
      this.search = null;
      this.changed();
      return;
    }
    await this.runScan(query);
  }

  private async runScan(query: string): Promise<void> {
    this.searchAbort?.abort();
    const controller = new AbortController();
    this.searchAbort = controller;
    const size = this.store.size;
    const search: SearchState = { query, matches: [], more: false, current: -1, progress: { scanned: 0, size }, done: false, error: null };
    if (query !== '') this.search = search;
    this.changed();
    try {
      const result = await scanLog(this.address, this.store, size, query === '' ? null : encodeQuery(query), (progress) => {
        search.progress = progress;
        this.changed();
      }, AbortSignal.any([controller.signal, this.abort.signal]));
      search.matches = result.matches;
      search.more = result.more;
      search.done = true;
      search.progress = null;
    } catch (error) {
      if (controller.signal.aborted || this.abort.signal.aborted) return;
      search.error = error;
    }
    this.changed();
  }

  /** Moves to the next (+1) or previous (-1) match; returns its offset. */
  step(direction: 1 | -1): number | null {
    const search = this.search;
    if (search === null || search.matches.length === 0) return null;
    const count = search.matches.length;
    search.current = search.current === -1 ? (direction === 1 ? 0 : count - 1) : (search.current + direction + count) % count;
    this.changed();
    return search.matches[search.current] ?? null;
  }

  dispose(): void {
    this.abort.abort();
    this.searchAbort?.abort();
    this.stopFollow?.();
    this.listeners.clear();
  }
}

export { MAX_MATCHES };
