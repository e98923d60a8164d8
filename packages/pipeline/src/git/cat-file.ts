import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { spawnGit, type GitContext } from './git-process.js';
import { readReply, type ObjectContent, type ObjectInfo, type Reply, type ReplyParser } from './cat-file-protocol.js';

/** How long an unused `git cat-file` process is kept before it is closed. */
export const DEFAULT_IDLE_MS = 30_000;
/** The end of git's stderr kept to explain an exit; a long-lived process writes a line per failed peel. */
const STDERR_TAIL = 4096;

/**
 * One long-lived `git cat-file --batch-command` per repository directory. Job creation asks several
 * questions of one repository (is this a commit, what is in `.pipeline.yml`); one process answering
 * them all replaces a git process per question, which was most of the time of a burst of pushes.
 */
export interface CatFilePool {
  /** Type and size of an object (`<sha>^{commit}`, `<sha>:<path>`), or null when there is none. */
  info(directory: string, object: string): Promise<ObjectInfo | null>;
  /** The object's bytes; above `limit` its bytes are skipped as they arrive and only the size is returned. */
  contents(directory: string, object: string, limit: number): Promise<ObjectContent | null>;
  /** Ends the process of one directory once it has answered what it was asked (after a fetch, for example). */
  retire(directory: string): void;
  /** Ends every process and waits for them to exit. */
  close(): Promise<void>;
  /** The process ids of the live processes (diagnostics and tests). */
  processIds(): number[];
}

export interface CatFilePoolOptions {
  context: GitContext;
  ceilingOf: (directory: string) => string;
  idleMs?: number;
}

interface Pending {
  parser: ReplyParser;
  resolve: (reply: Reply) => void;
  reject: (error: Error) => void;
}

/** Node's pipes and child processes can be unref'ed; the stream typings do not say so. */
interface Referable {
  ref?: () => void;
  unref?: () => void;
}

class CatFileProcess {
  private readonly child: ChildProcessWithoutNullStreams;
  private readonly pending: Pending[] = [];
  private buffer: Buffer = Buffer.alloc(0);
  private stderr = '';
  private idleTimer: NodeJS.Timeout | undefined;
  private failure: Error | null = null;
  readonly exited: Promise<void>;

  constructor(
    private readonly directory: string,
    options: CatFilePoolOptions,
    private readonly onGone: (process: CatFileProcess) => void,
    private readonly idleMs: number,
  ) {
    this.child = spawnGit(options.context, ['-C', directory, 'cat-file', '--batch-command'], { ceiling: options.ceilingOf(directory) });
    this.child.stderr.on('data', (chunk: Buffer) => {
      this.stderr = (this.stderr + chunk.toString('utf8')).slice(-STDERR_TAIL);
    });
    this.child.stdout.on('data', (chunk: Buffer) => this.receive(chunk));
    // A child that died leaves EPIPE on its stdin; the exit handler explains the failure.
    this.child.stdin.on('error', () => undefined);
    let exited!: () => void;
    this.exited = new Promise((resolve) => (exited = resolve));
    this.child.on('error', (error) => {
      this.fail(new Error(`git cat-file could not be started in ${directory}: ${error.message}`));
      exited();
    });
    this.child.on('close', (code, signal) => {
      const detail = this.stderr.trim().split('\n').filter((line) => line !== '').slice(-3).join('; ');
      const how = code === null ? `signal ${signal ?? 'unknown'}` : `exit ${code}`;
      this.fail(new Error(`git cat-file in ${directory} stopped (${how})${detail === '' ? '' : `: ${detail}`}`));
      exited();
    });
    this.setReferenced(false);
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  get usable(): boolean {
    return this.failure === null && !this.child.stdin.writableEnded;
  }

  ask(command: string, parser: ReplyParser): Promise<Reply> {
    if (this.failure !== null) return Promise.reject(this.failure);
    clearTimeout(this.idleTimer);
    this.setReferenced(true);
    return new Promise((resolve, reject) => {
      this.pending.push({ parser, resolve, reject });
      // Commands are pipelined: git answers them in order, and `receive` hands each answer to the
      // oldest pending request.
      this.child.stdin.write(`${command}\n`);
    });
  }

  /** Closes stdin: git answers what it was sent, then exits (node waits for that, so `close` can). */
  end(): void {
    clearTimeout(this.idleTimer);
    this.setReferenced(true);
    if (!this.child.stdin.writableEnded) this.child.stdin.end();
  }

  private receive(chunk: Buffer): void {
    this.buffer = this.buffer.length === 0 ? chunk : Buffer.concat([this.buffer, chunk]);
    while (this.buffer.length > 0) {
      const head = this.pending[0];
      if (head === undefined) {
        this.abandon(new Error(`git cat-file in ${this.directory} sent output nobody asked for`));
        return;
      }
      let step;
      try {
        step = readReply(head.parser, this.buffer);
      } catch (error) {
        this.abandon(error instanceof Error ? error : new Error(String(error)));
        return;
      }
      this.buffer = this.buffer.subarray(step.consumed);
      if (step.reply === undefined) return;
      this.pending.shift();
      head.resolve(step.reply);
    }
    if (this.pending.length === 0) this.becomeIdle();
  }

  private becomeIdle(): void {
    this.setReferenced(false);
    this.idleTimer = setTimeout(() => this.end(), this.idleMs);
    this.idleTimer.unref();
  }

  /** Output that does not fit the protocol: nothing after it can be trusted, so the process is ended. */
  private abandon(error: Error): void {
    this.fail(error);
    this.child.kill('SIGKILL');
  }

  private fail(error: Error): void {
    clearTimeout(this.idleTimer);
    if (this.failure === null) {
      this.failure = error;
      this.onGone(this);
    }
    this.setReferenced(false);
    for (const request of this.pending.splice(0)) request.reject(error);
  }

  /**
   * An idle process must not keep node alive (the admin CLI opens repositories and exits when done);
   * a busy one must, or a command awaiting an answer could see node exit under it.
   */
  private setReferenced(referenced: boolean): void {
    for (const handle of [this.child, this.child.stdin, this.child.stdout, this.child.stderr] as Referable[]) {
      if (referenced) handle.ref?.();
      else handle.unref?.();
    }
  }
}

export function createCatFilePool(options: CatFilePoolOptions): CatFilePool {
  const idleMs = options.idleMs ?? DEFAULT_IDLE_MS;
  const live = new Map<string, CatFileProcess>();
  const all = new Set<CatFileProcess>();
  let closed = false;

  const forget = (process: CatFileProcess, directory: string): void => {
    if (live.get(directory) === process) live.delete(directory);
  };

  const processFor = (directory: string): CatFileProcess => {
    if (closed) throw new Error('the repositories are closed');
    const existing = live.get(directory);
    if (existing?.usable === true) return existing;
    const started: CatFileProcess = new CatFileProcess(directory, options, (gone) => forget(gone, directory), idleMs);
    live.set(directory, started);
    all.add(started);
    void started.exited.then(() => all.delete(started));
    return started;
  };

  const ask = async (directory: string, command: string, parser: ReplyParser): Promise<Reply> => processFor(directory).ask(command, parser);

  return {
    async info(directory, object) {
      const reply = await ask(directory, `info ${object}`, { kind: 'info' });
      if (reply.kind === 'missing') return null;
      if (reply.kind !== 'info') throw new Error('git cat-file answered an info request with contents');
      return reply.info;
    },
    async contents(directory, object, limit) {
      const reply = await ask(directory, `contents ${object}`, { kind: 'contents', limit });
      if (reply.kind === 'missing') return null;
      if (reply.kind !== 'contents') throw new Error('git cat-file answered a contents request without contents');
      return reply.content;
    },
    retire(directory) {
      const process = live.get(directory);
      live.delete(directory);
      process?.end();
    },
    async close() {
      closed = true;
      live.clear();
      for (const process of all) process.end();
      await Promise.all([...all].map((process) => process.exited));
    },
    processIds() {
      return [...all].flatMap((process) => (process.pid === undefined ? [] : [process.pid]));
    },
  };
}
