import createClient from 'openapi-fetch';
import type { paths as PipelinePaths, components as PipelineComponents } from './pipeline.gen';
import type { paths as SigninPaths, components as SigninComponents } from './signin.gen';

// Both services share this page's origin (`conveyor serve`), so every call is same-origin: the browser
// sends the session cookie and, on changes, the Origin header the CSRF check wants.

export const pipeline = createClient<PipelinePaths>({ baseUrl: '' });
export const signin = createClient<SigninPaths>({ baseUrl: '' });

export type PipelineSchemas = PipelineComponents['schemas'];
export type SigninSchemas = SigninComponents['schemas'];

/** A refusal from either service, in the words it gave: `code` is the catalogue code, `message` the sentence. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    /** Seconds, from Retry-After, when the service said when to try again. */
    readonly retryAfter: number | null,
  ) {
    super(message);
  }
}

interface ErrorShape {
  error?: unknown;
  code?: unknown;
  message?: unknown;
}

/** Reads either service's error body: the pipeline's `{error: sentence, code}`, the sign-in service's `{error: code, message}`. */
function toApiError(status: number, body: unknown, response: Response): ApiError {
  const shape: ErrorShape = typeof body === 'object' && body !== null ? (body as ErrorShape) : {};
  const text = (value: unknown): string | null => (typeof value === 'string' && value !== '' ? value : null);
  const code = text(shape.code) ?? text(shape.error) ?? `http_${status}`;
  const message = text(shape.message) ?? text(shape.error) ?? `The server answered ${status} ${response.statusText}.`;
  const retry = Number(response.headers.get('retry-after'));
  return new ApiError(status, code, message, Number.isFinite(retry) && retry > 0 ? retry : null);
}

/** An openapi-fetch result's data, or its error as an ApiError. */
export async function unwrap<T>(call: Promise<{ data?: T; error?: unknown; response: Response }>): Promise<T> {
  let result: { data?: T; error?: unknown; response: Response };
  try {
    result = await call;
  } catch {
    throw new ApiError(0, 'network', 'The server could not be reached. Check that Conveyor is running, then try again.', null);
  }
  if (result.response.ok) return result.data as T;
  throw toApiError(result.response.status, result.error, result.response);
}

/** A sentence for any failure, for the page's error box. */
export function describeError(error: unknown): string {
  if (error instanceof ApiError) {
    if (error.status === 401) return 'Your session has ended. Sign in again to continue.';
    if (error.status === 403 && error.code === 'cross_site') return 'The server refused a request from another site. Reload the page and try again.';
    return error.message.charAt(0).toUpperCase() + error.message.slice(1) + (/[.!?]$/.test(error.message) ? '' : '.');
  }
  return error instanceof Error ? error.message : String(error);
}
