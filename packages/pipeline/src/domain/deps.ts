import type { BlobStore } from '../blobs/types.js';
import type { Clock } from '@conveyor/kit';
import type { PipelineConfig } from '../config.js';
import type { Repositories } from '../git/repositories.js';
import type { PipelineStore } from '../store/types.js';
import type { EventHub } from './events.js';
import type { WorkSignal } from './work-signal.js';

/** What domain operations need, built once in main.ts (or a test) and passed down. */
export interface PipelineDeps {
  config: PipelineConfig;
  store: PipelineStore;
  /** The bytes of logs and artifacts; the store records what they are. */
  blobs: BlobStore;
  repos: Repositories;
  clock: Clock;
  work: WorkSignal;
  /** Wakes log and event followers when a log grows or a job changes. */
  events: EventHub;
}
