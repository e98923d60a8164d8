import { open, type FileHandle } from 'node:fs/promises';
import { isRetryable, type ProtocolClient } from './client.js';
import { Masker } from './masking.js';
import { Backoff, sleep } from './timing.js';

const MIN_ADAPTIVE_CHUNK = 64 * 1024;

export interface LogStreamOptions {
  /** Local spool file: the log lives here until the server has acknowledged it. */
  spoolPath: string;
  url: string;
  client: Pick<ProtocolClient, 'appendLog'>;
  masked: readonly string[];
  flushMs?: number;
  flushBytes?: number;
  /** Largest append body; halved when the server answers 413. */
  maxChunkBytes?: number;
  /** Told once when the server refuses the log for good (the task is no longer ours). */
  onRejected?: (reason: string) => void;
  /** Told once when the server takes no more log (413 on a small append: its log limit); the task goes on. */
  onFull?: (storedBytes: number) => void;
}

/**
 * The task's log on its way to the server. Output is masked, then appended to a spool file on disk,
 * so neither a 100 MB log nor an hour without the server costs memory; a separate loop sends the
 * spool in order, tracking the server's offset. A dropped connection or a 5xx resends the same
 * bytes (the server trims the overlap); a 409 resumes from `expected_offset` out of the spool.
 */
export class LogStream {
  private readonly masker: Masker;
  private readonly flushMs: number;
  private readonly flushBytes: number;
  /** Largest append the server takes: the configured size, halved for good on each 413. */
  private largestChunk: number;
  /** Current append size limit: halved after a broken append, doubled back after a good one. */
  private maxChunkBytes: number;
  private written = 0;
  /** Bytes of the spool the server has acknowledged. */
  private acked = 0;
  /** Server offset of the spool's first byte (non-zero when the server's log already held bytes). */
  private base = 0;
  private pendingSince = 0;
  private finishing = false;
  private stopped = false;
  /** The server takes no more: further output is not even spooled (a runaway log must not fill the disk). */
  private full = false;
  private wake: (() => void) | null = null;
  private writes: Promise<void> = Promise.resolve();
  private readonly pump: Promise<boolean>;

  private constructor(private readonly spool: FileHandle, private readonly options: LogStreamOptions) {
    this.masker = new Masker(options.masked);
    this.flushMs = options.flushMs ?? 250;
    this.flushBytes = options.flushBytes ?? 64 * 1024;
    this.largestChunk = options.maxChunkBytes ?? 4 * 1024 * 1024;
    this.maxChunkBytes = this.largestChunk;
    this.pump = this.send();
  }

  static async open(options: LogStreamOptions): Promise<LogStream> {
    return new LogStream(await open(options.spoolPath, 'w+', 0o600), options);
  }

  /** Bytes of (masked) log produced so far. */
  get size(): number {
    return this.written;
  }

  /** Masks and spools a piece of output; writes are applied in call order. */
  write(chunk: Buffer): Promise<void> {
    this.writes = this.writes.then(() => this.append(this.masker.push(chunk)));
    return this.writes;
  }

  /** A line from the worker itself (a note about what it did), masked like the script's output. */
  note(text: string): Promise<void> {
    return this.write(Buffer.from(`${text}\n`));
  }

  /**
   * Releases the masker's tail and waits until the server holds every byte. Resolves false when
   * the log could not be delivered (refused, or `abandon` was called).
   */
  async finish(): Promise<boolean> {
    this.writes = this.writes.then(() => this.append(this.masker.end()));
    await this.writes;
    this.finishing = true;
    this.notify();
    const delivered = await this.pump;
    await this.spool.close();
    return delivered;
  }

  /** Stops sending: the task was lost, so whatever is still spooled is dropped. */
  abandon(): void {
    this.stopped = true;
    this.notify();
  }

  private async append(bytes: Buffer): Promise<void> {
    if (bytes.length === 0 || this.full) return;
    const wasIdle = this.acked === this.written;
    if (wasIdle) this.pendingSince = Date.now();
    let done = 0;
    while (done < bytes.length) {
      const { bytesWritten } = await this.spool.write(bytes, done, bytes.length - done, this.written + done);
      done += bytesWritten;
    }
    this.written += bytes.length;
    // Wake the sender when its flush timer must start, or when a full chunk is waiting.
    if (wasIdle || this.written - this.acked >= this.flushBytes) this.notify();
  }

  private notify(): void {
    const wake = this.wake;
    this.wake = null;
    wake?.();
  }

  private waitForNotice(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = ms === Infinity ? undefined : setTimeout(resolve, ms);
      this.wake = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  }

  private async send(): Promise<boolean> {
    const backoff = new Backoff(100, 5_000);
    for (;;) {
      if (this.stopped) return false;
      const pending = this.written - this.acked;
      if (pending === 0) {
        if (this.finishing) return true;
        await this.waitForNotice(Infinity);
        continue;
      }
      const due = this.pendingSince + this.flushMs - Date.now();
      if (pending < this.flushBytes && !this.finishing && due > 0) {
        await this.waitForNotice(due);
        continue;
      }
      const outcome = await this.sendChunk(Math.min(pending, this.maxChunkBytes));
      if (outcome === 'retry') await sleep(backoff.next());
      else if (outcome === 'refused') return false;
      else backoff.reset();
    }
  }

  private async sendChunk(size: number): Promise<'sent' | 'retry' | 'refused'> {
    const bytes = Buffer.alloc(size);
    const { bytesRead } = await this.spool.read(bytes, 0, size, this.acked);
    const chunk = bytes.subarray(0, bytesRead);
    try {
      const result = await this.options.client.appendLog(this.options.url, this.base + this.acked, chunk);
      if (this.stopped) return 'refused';
      if (result.kind === 'appended') {
        this.acked = Math.min(this.written, Math.max(this.acked, result.offset - this.base));
        this.pendingSince = Date.now();
        this.maxChunkBytes = Math.min(this.largestChunk, this.maxChunkBytes * 2);
        return 'sent';
      }
      if (result.kind === 'too-large') {
        // A 413 means a body above the server's limit or a log at its size limit; only a smaller
        // append tells which. Once even a small one is refused, the rest of the log is dropped.
        if (size <= MIN_ADAPTIVE_CHUNK) {
          this.full = true;
          this.options.onFull?.(this.base + this.acked);
          return 'refused';
        }
        this.largestChunk = Math.max(MIN_ADAPTIVE_CHUNK, Math.floor(size / 2));
        this.maxChunkBytes = Math.min(this.maxChunkBytes, this.largestChunk);
        return 'sent';
      }
      return this.resumeAt(result.expectedOffset);
    } catch (error) {
      if (isRetryable(error)) {
        // On a network that keeps cutting connections, a smaller append is likelier to get through.
        this.maxChunkBytes = Math.min(this.largestChunk, Math.max(MIN_ADAPTIVE_CHUNK, Math.floor(size / 2)));
        return 'retry';
      }
      this.options.onRejected?.(`log append refused: ${(error as Error).message}`);
      return 'refused';
    }
  }

  /** Follows the server's `expected_offset` after a 409. */
  private resumeAt(expected: number): 'sent' | 'refused' {
    if (expected >= this.base && expected <= this.base + this.written) {
      this.acked = expected - this.base;
      return 'sent';
    }
    if (this.acked === 0 && expected > this.base) {
      // Nothing of ours is stored yet and the server's log already holds bytes: ours follow them.
      this.base = expected;
      return 'sent';
    }
    this.options.onRejected?.(`log offsets disagree: server expects ${expected}, worker holds ${this.base}..${this.base + this.written}`);
    return 'refused';
  }
}
