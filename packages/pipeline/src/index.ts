export { buildApp, type AppOptions } from './app.js';
export { systemClock, type Clock } from './clock.js';
export { ConfigError, readPipelineConfig, type PipelineConfig } from './config.js';
export type { PipelineDeps } from './domain/deps.js';
export * as admin from './domain/projects.js';
export { ServiceError } from './errors.js';
export type { SessionResolver, SessionViewer } from './http/access.js';
export { openPipeline, startPipelineServer, type RunningServer } from './main.js';
export type { Project, Worker } from './store/types.js';
