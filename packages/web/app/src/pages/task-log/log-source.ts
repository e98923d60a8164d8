// The log route read the two ways the page needs: byte ranges (HTTP Range; never the whole log) and the
// live follow (server-sent events; an EventSource asks with `Accept: text/event-stream`, which is how
// the route tells a follow from a read).
import { ApiError } from '../../api/client';

export interface LogAddress {
  project: string;
  job: string;
  task: string;
  /** null: the task's current attempt. */
  attempt: number | null;
}

export function logUrl(address: LogAddress, extra: Record<string, string> = {}): string {
  const query = new URLSearchParams(extra);
  if (address.attempt !== null) query.set('attempt', String(address.attempt));
  const text = query.toString();
  const path = `/api/v1/projects/${encodeURIComponent(address.project)}/jobs/${encodeURIComponent(address.job)}/tasks/${encodeURIComponent(address.task)}/log`;
  return text === '' ? path : `${path}?${text}`;
}

export interface RangeRead {
  /** Offset of the first byte returned. */
  start: number;
  bytes: Uint8Array;
  /** The log's size when it answered. */
  size: number;
}

async function refusal(response: Response): Promise<ApiError> {
  let body: { error?: unknown; code?: unknown } = {};
  try {
    body = (await response.json()) as typeof body;
  } catch {
    // Not JSON: the status says enough.
  }
  const message = typeof body.error === 'string' ? body.error : `The log could not be read (${response.status}).`;
  return new ApiError(response.status, typeof body.code === 'string' ? body.code : `http_${response.status}`, message, null);
}

// `Content-Range: bytes a-b/size`, or `bytes */size` on a 416.
function parseContentRange(header: string | null): { start: number; size: number } | null {
  const match = header === null ? null : /^bytes (?:(\d+)-\d+|\*)\/(\d+)$/.exec(header.trim());
  if (match === null) return null;
  return { start: Number(match[1] ?? 0), size: Number(match[2]) };
}

/**
 * Reads `range` (`a-b` or `-n`, as in the Range header). An empty log answers 416 to every range: that
 * is an empty read, not an error.
 */
export async function readLogRange(address: LogAddress, range: string, signal?: AbortSignal): Promise<RangeRead> {
  let response: Response;
  try {
    response = await fetch(logUrl(address), { headers: { range: `bytes=${range}` }, signal, credentials: 'same-origin' });
  } catch (error) {
    if (signal?.aborted === true) throw error;
    throw new ApiError(0, 'network', 'The server could not be reached. Check that Conveyor is running, then reload the page.', null);
  }
  if (response.status === 416) {
    const size = parseContentRange(response.headers.get('content-range'))?.size ?? 0;
    await response.body?.cancel();
    return { start: size, bytes: new Uint8Array(0), size };
  }
  if (!response.ok) throw await refusal(response);
  const bytes = new Uint8Array(await response.arrayBuffer());
  const place = parseContentRange(response.headers.get('content-range'));
  // A 200 (no range applied) is the whole log from byte 0.
  return place === null ? { start: 0, bytes, size: bytes.length } : { start: place.start, bytes, size: place.size };
}

export interface FollowHandlers {
  attempt(attempt: number): void;
  data(start: number, bytes: Uint8Array): void;
  end(size: number): void;
  /** The stream broke: `closed` false while the browser reconnects from the last id (nothing is lost), true when it gave up. */
  interrupted(closed: boolean): void;
}

function decodeBase64(text: string): Uint8Array {
  const binary = atob(text);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i += 1) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

/** Follows the log from `offset`; returns the function that stops following. */
export function followLog(address: LogAddress, offset: number, handlers: FollowHandlers): () => void {
  const source = new EventSource(logUrl(address, { offset: String(offset) }));
  source.addEventListener('attempt', (event) => {
    const { attempt } = JSON.parse((event as MessageEvent<string>).data) as { attempt: number };
    handlers.attempt(attempt);
  });
  source.addEventListener('message', (event) => {
    const bytes = decodeBase64(event.data as string);
    handlers.data(Number(event.lastEventId) - bytes.length, bytes);
  });
  source.addEventListener('end', (event) => {
    // The stream is over; without close() the browser would connect again.
    source.close();
    const { size } = JSON.parse((event as MessageEvent<string>).data) as { size: number };
    handlers.end(size);
  });
  source.addEventListener('error', () => {
    handlers.interrupted(source.readyState === EventSource.CLOSED);
  });
  return () => source.close();
}
