import type { ServiceSpec } from '@conveyor/protocol';

/** Everything an executor needs to run one task's script. */
export interface ExecutionSpec {
  /** Used to name containers; any characters. */
  taskId: string;
  image: string;
  /** The payload's workdir: where the task's directory appears to the script in a container. */
  workdir: string;
  /** The task's directory on this machine (the extracted source). */
  hostDir: string;
  /** A private directory on this machine holding the generated script, nothing else. */
  scriptDir: string;
  /** Name of the generated script inside `scriptDir`. */
  scriptName: string;
  services: readonly ServiceSpec[];
  /** Receives stdout and stderr as produced; awaiting it is the backpressure. */
  output: (chunk: Buffer) => Promise<void>;
  /** Lines the worker writes about what it did (service start-up and the like). */
  note: (text: string) => Promise<void>;
}

export interface ExecutionResult {
  /** The script's exit status; null when it was ended from outside before exiting on its own. */
  exitCode: number | null;
}

/** Runs a task's script; aborting `signal` ends the whole process tree (and containers) and resolves. */
export interface Executor {
  readonly name: string;
  run(spec: ExecutionSpec, signal: AbortSignal): Promise<ExecutionResult>;
  /** Removes what a previous life of this worker left behind (containers of a killed worker). */
  cleanUp?(): Promise<void>;
  /** Ends everything at once, without waiting: the worker is exiting. */
  killAllNow?(): void;
}
