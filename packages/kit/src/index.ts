/**
 * Small parts every Conveyor package would otherwise copy: reading settings from the environment,
 * the clock, and the OpenAPI types with the route-coverage check. No runtime dependencies, no
 * knowledge of any service.
 */
export { ConfigError, parseDurationSeconds, parseEnum, parseHttpUrl, parseInteger, readEnv, type Env, type IntegerRange } from './env.js';
export { createManualClock, systemClock, type Clock, type ManualClock } from './clock.js';
export * from './openapi/types.js';
export { compareRoutes, recordRoutes, toOpenApiPath, type RouteKey, type RouteSource } from './openapi/coverage.js';
