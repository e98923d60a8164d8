import type { FastifyRequest } from 'fastify';

/** The base of absolute URLs: PIPELINE_PUBLIC_URL, else what the request itself addressed. */
export function baseUrlOf(request: FastifyRequest, publicUrl: string | null): string {
  return publicUrl ?? `${request.protocol}://${request.host}`;
}
