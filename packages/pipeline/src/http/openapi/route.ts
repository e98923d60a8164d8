import type { FastifyInstance } from 'fastify';
import { pipelineOpenApiDocument } from './document.js';

/** `GET /api/v1/openapi.json`: public, the document serialised once. */
export function registerOpenApiRoute(app: FastifyInstance): void {
  const body = JSON.stringify(pipelineOpenApiDocument);
  app.get('/api/v1/openapi.json', async (_request, reply) => reply.type('application/json; charset=utf-8').send(body));
}
