/** The same server timeouts as the pipeline service's, so a server mounting both binds them alike. */
export { timeoutServerOptions as serverOptions } from '@conveyor/kit/http';
