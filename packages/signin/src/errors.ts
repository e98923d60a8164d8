/**
 * The one error type of the sign-in service: an HTTP status, a spec code and a human message.
 * The HTTP error handler turns it into `{"error": code, "message": message}`; the admin CLI turns it
 * into exit status 2 with the code in its JSON error object.
 */
export class SigninError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    /** Sent as `Retry-After` (seconds) with 429 and 503 answers. */
    readonly retryAfterSeconds?: number,
  ) {
    super(message);
    this.name = 'SigninError';
  }
}

export function invalidRequest(message: string): SigninError {
  return new SigninError(400, 'invalid_request', message);
}

export function unknownRealm(message = 'no realm matches the host or the realm slug'): SigninError {
  return new SigninError(404, 'unknown_realm', message);
}

export function invalidCredentials(): SigninError {
  // One message for every cause, so the response does not tell which check failed.
  return new SigninError(401, 'invalid_credentials', 'the identifier or the password is not correct');
}

export function notAuthenticated(): SigninError {
  return new SigninError(401, 'not_authenticated', 'no valid session');
}

export function providerRequired(): SigninError {
  return new SigninError(403, 'provider_required', 'this account must sign in through its identity provider');
}

export function providerDisabled(): SigninError {
  return new SigninError(409, 'provider_disabled', "this account's identity provider is disabled");
}

export function homeRealmConflict(message: string): SigninError {
  return new SigninError(409, 'home_realm_conflict', `home_realm_conflict: ${message}`);
}

/** The same answer for every identifier, existing or not: it must not tell which accounts exist. */
export function tooManyAttempts(retryAfterSeconds: number): SigninError {
  return new SigninError(429, 'too_many_attempts', `too many failed sign-in attempts; try again in ${retryAfterSeconds} seconds`, retryAfterSeconds);
}

/** The password-hashing queue is full: the server sheds load instead of slowing every sign-in. */
export function busy(retryAfterSeconds = 1): SigninError {
  return new SigninError(503, 'busy', `the server is busy checking other passwords; try again in ${retryAfterSeconds} second(s)`, retryAfterSeconds);
}

export function bodyTooLarge(): SigninError {
  return new SigninError(413, 'invalid_request', 'the request body is larger than the limit of 64 KiB');
}

export function unknownEndpoint(): SigninError {
  return new SigninError(404, 'not_found', 'no such endpoint');
}

/** A body that trickles in is cut off; the answer goes out on the raw socket, so it is made here but sent there. */
export function requestTimeout(): SigninError {
  return new SigninError(408, 'request_timeout', 'the request body arrived too slowly and the connection was closed; send the whole body without pausing');
}

/** Anything unexpected: no internals reach the caller. */
export function internalError(): SigninError {
  return new SigninError(500, 'internal_error', 'internal error');
}

/** The response body of every error: the code and the message. */
export function errorBody(error: SigninError): { error: string; message: string } {
  return { error: error.code, message: error.message };
}

/** Storage-level refusals, typed so callers never see raw driver errors. */
export function notFound(what: string): SigninError {
  return new SigninError(404, 'not_found', `${what} not found`);
}

export function duplicate(what: string): SigninError {
  return new SigninError(409, 'duplicate', `${what} already exists`);
}
