/**
 * The service's one error type: an HTTP status and the message of the `{"error": ...}` body, plus any
 * extra body fields the spec asks for (`problems` on 422, `expected_offset` on a log gap).
 */
export class ServiceError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly extra: Record<string, unknown> = {},
  ) {
    super(message);
    this.name = 'ServiceError';
  }
}

export const notFound = (what = 'not found'): ServiceError => new ServiceError(404, what);
export const badRequest = (message: string): ServiceError => new ServiceError(400, message);
