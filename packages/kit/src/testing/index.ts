/** Test support shared by the packages' tests: never imported by a service at run time. */
export { FlakyProxy } from './flaky-proxy.js';
export { seededRandom } from './random.js';
export { testOpenApiContract, type OpenApiContract } from './openapi-contract.js';
export { trickle, type TrickleOutcome } from './trickle.js';
export { gitSync, TEST_GIT_ENV } from './git.js';
