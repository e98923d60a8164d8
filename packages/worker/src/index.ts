/**
 * The Conveyor worker agent: claims tasks from a pipeline service, runs their scripts on the host or
 * in containers, streams their logs and uploads their artifacts. `conveyor worker` is its command.
 */
export { createWorker, type Worker } from './main.js';
export { resolveConfig, ConfigError, EXECUTORS, type WorkerConfig, type WorkerFlags, type ExecutorKind } from './config.js';
