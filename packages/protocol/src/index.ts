/**
 * The worker <-> pipeline-service protocol: request and response payloads as runtime schemas (zod) with
 * the TypeScript types inferred from them. Both sides import only this package, so the wire format has
 * exactly one definition. See ../../../docs/worker-protocol.md for the prose version.
 */
export * from './schemas.js';
export * from './validate.js';
export * from './artifact-glob.js';
