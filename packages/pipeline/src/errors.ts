/**
 * The pipeline service's one error catalogue. Every refusal is made here by a named function, so each
 * has one status, one stable code and one message. The body is the spec's `{"error": "<message>"}`
 * with the code beside it, plus any extra fields the spec asks for (`problems` on 422,
 * `expected_offset` on a log gap, the limit passed on 413).
 */
export const ERROR_CODES = {
  not_found: 'the resource does not exist or the caller may not see it (absence and denial look the same)',
  invalid_request: 'a parameter, header or body is malformed; the message names it',
  invalid_json: 'the body is not valid JSON',
  invalid_host: 'the Host header cannot make an absolute URL',
  signature_invalid: 'the trigger-secret signature (or push token) is missing or wrong',
  cancel_unsigned: 'a cancel was signed over an empty body; sign {"job": "<job id>"}',
  cancel_body_invalid: 'a signed cancel body does not name the job in the path',
  job_running: 'the job is still running; wait for it to finish (or stop it) before re-running its failed tasks',
  nothing_to_rerun: 'the job has no failed or canceled task to run again',
  worker_token_invalid: 'no valid worker token in Authorization: Bearer',
  not_signed_in: 'the management API needs a session cookie or a valid API token in Authorization: Bearer',
  session_required: 'the operation needs a signed-in session; an API token may not do it',
  cross_site: 'a cookie-authenticated change came from another origin; nothing was changed',
  project_disabled: 'the project is disabled and takes no new jobs',
  duplicate: 'a project or worker of that name already exists',
  commit_unusable: 'the commit is not a full id or cannot be fetched from the repository',
  commit_gone: "the job's commit is no longer in the repository",
  pipeline_invalid: 'the pipeline file at the commit is invalid; see `problems`',
  log_gap: 'the chunk starts past the end of the log; resend from `expected_offset`',
  log_full: 'the log would pass `max_log_bytes`',
  artifact_too_large: 'the upload would pass `max_artifact_bytes` or `max_task_artifact_bytes`; nothing was stored',
  length_required: 'an artifact upload needs Content-Length',
  body_length_mismatch: 'the body ended before, or ran past, its declared length; nothing was stored',
  body_too_large: 'the body is larger than the route accepts',
  body_too_slow: 'the body arrived too slowly and the connection was closed',
  range_not_satisfiable: 'the Range header asks for bytes past the end',
  busy: 'too many trigger bodies are being received; retry after `Retry-After` seconds',
  internal_error: 'the service failed; the cause is in its log',
} as const;

export type ErrorCode = keyof typeof ERROR_CODES;

export class ServiceError extends Error {
  constructor(
    readonly status: number,
    readonly code: ErrorCode,
    message: string,
    readonly extra: Record<string, unknown> = {},
  ) {
    super(message);
    this.name = 'ServiceError';
  }
}

/** The response body of an error. */
export function errorBody(error: ServiceError): Record<string, unknown> {
  return { error: error.message, code: error.code, ...error.extra };
}

export const errors = {
  /** Absent or not the caller's to see: the same answer, so a private resource's existence does not leak. */
  notFound: (message = 'not found') => new ServiceError(404, 'not_found', message),
  invalidRequest: (message: string) => new ServiceError(400, 'invalid_request', message),
  invalidJson: (message = 'the body is not valid JSON') => new ServiceError(400, 'invalid_json', message),
  invalidHost: () => new ServiceError(400, 'invalid_host', 'invalid Host header: send host[:port], or set PIPELINE_PUBLIC_URL on the service'),
  signatureInvalid: () => new ServiceError(401, 'signature_invalid', 'signature missing or wrong'),
  /** The read signature (an HMAC of the empty body) travels with every signed read, so it must never cancel. */
  cancelUnsigned: () =>
    new ServiceError(401, 'cancel_unsigned', 'cancel needs a signature over the body {"job": "<job id>"}; the signature of an empty body only reads'),
  cancelBodyInvalid: (message: string) => new ServiceError(400, 'cancel_body_invalid', message),
  notSignedIn: () => new ServiceError(401, 'not_signed_in', 'sign in first'),
  jobRunning: () =>
    new ServiceError(409, 'job_running', 'the job is still running; wait until it ends, or stop it, then re-run its failed tasks'),
  nothingToRerun: () =>
    new ServiceError(409, 'nothing_to_rerun', 'the job has no failed or canceled task; re-run the whole job instead (POST .../rerun)'),
  crossSite: () => new ServiceError(403, 'cross_site', 'cross-site request refused'),
  workerTokenInvalid: () => new ServiceError(401, 'worker_token_invalid', 'a valid worker token is required'),
  sessionRequired: () =>
    new ServiceError(403, 'session_required', 'API tokens are created with a signed-in session, not with another token; sign in and try again'),
  projectDisabled: () => new ServiceError(409, 'project_disabled', 'the project is disabled'),
  duplicate: (message: string) => new ServiceError(409, 'duplicate', message),
  commitUnusable: (reason: string) => new ServiceError(400, 'commit_unusable', `no usable commit: ${reason}`),
  commitGone: () => new ServiceError(404, 'commit_gone', 'the commit is gone from the repository'),
  pipelineInvalid: (problems: readonly { path: string; message: string }[]) =>
    new ServiceError(422, 'pipeline_invalid', 'the pipeline at that commit is invalid', { problems }),
  logGap: (expectedOffset: number) =>
    new ServiceError(409, 'log_gap', `log gap: the log is ${expectedOffset} bytes long`, { expected_offset: expectedOffset }),
  /** The limit in the body tells a full log apart from a request body over the route's own limit. */
  logFull: (maxLogBytes: number) => new ServiceError(413, 'log_full', `the log is limited to ${maxLogBytes} bytes`, { max_log_bytes: maxLogBytes }),
  artifactTooLarge: (maxArtifactBytes: number, declared: number) =>
    new ServiceError(413, 'artifact_too_large', `an artifact is limited to ${maxArtifactBytes} bytes; this one declares ${declared}`, {
      max_artifact_bytes: maxArtifactBytes,
    }),
  taskArtifactsTooLarge: (maxTaskArtifactBytes: number, storedBytes: number, declared: number) =>
    new ServiceError(
      413,
      'artifact_too_large',
      `the artifacts of one task attempt are limited to ${maxTaskArtifactBytes} bytes; ${storedBytes} are already stored or on their way, and this one declares ${declared}`,
      { max_task_artifact_bytes: maxTaskArtifactBytes },
    ),
  lengthRequired: () => new ServiceError(411, 'length_required', 'Content-Length is required'),
  bodyLengthMismatch: (received: number, expected: number, broken: boolean) =>
    new ServiceError(
      400,
      'body_length_mismatch',
      broken ? `the body ended after ${received} of ${expected} declared bytes` : `the body does not match its declared length of ${expected} bytes`,
    ),
  bodyTooLarge: (message: string) => new ServiceError(413, 'body_too_large', message),
  bodyTooSlow: () =>
    new ServiceError(408, 'body_too_slow', 'the request body arrived too slowly and the connection was closed; send the whole body without pausing'),
  rangeNotSatisfiable: () => new ServiceError(416, 'range_not_satisfiable', 'range not satisfiable'),
  busy: (retryAfterSeconds: number) =>
    new ServiceError(503, 'busy', `too many trigger bodies are being received at once; retry in ${retryAfterSeconds} seconds`),
  /** A refusal of the HTTP framework itself, such as a malformed Content-Length. */
  requestRefused: (status: number, message: string) => new ServiceError(status, 'invalid_request', message),
  internal: () => new ServiceError(500, 'internal_error', 'internal error'),
} as const;
