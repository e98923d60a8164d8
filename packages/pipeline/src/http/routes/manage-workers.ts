import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { createApiToken, listApiTokens, revokeApiToken } from '../../domain/api-tokens.js';
import { createOwnedWorker, listWorkersFor, revokeManagedWorker } from '../../domain/manage-workers.js';
import type { HttpContext } from '../context.js';
import { parseManageBody } from '../manage-input.js';
import { presentApiToken, presentWorker, presentWorkerStatus } from '../present-manage.js';
import { requireSessionViewer, requireViewer } from '../viewer.js';

const NamedThing = z.strictObject({ name: z.string().max(100) });

/** Workers and API tokens: for people (session or API token; creating a token needs a session). */
export function registerManageWorkerRoutes(app: FastifyInstance, context: HttpContext): void {
  const { deps } = context;

  app.get('/api/v1/workers', async (request) => {
    const viewer = await requireViewer(request, context);
    return { workers: (await listWorkersFor(deps, viewer)).map(presentWorkerStatus) };
  });

  app.post('/api/v1/workers', async (request, reply) => {
    const viewer = await requireViewer(request, context);
    const { worker, token } = await createOwnedWorker(deps, viewer, parseManageBody(request, NamedThing));
    request.log.info({ worker: worker.name, owner: viewer.userId }, 'worker created');
    return reply.code(201).send({ worker: presentWorker(worker), token });
  });

  app.delete<{ Params: { worker: string } }>('/api/v1/workers/:worker', async (request, reply) => {
    const viewer = await requireViewer(request, context);
    const worker = await revokeManagedWorker(deps, viewer, request.params.worker);
    request.log.info({ worker: worker.name, by: viewer.userId }, 'worker revoked');
    return reply.code(204).send();
  });

  app.get('/api/v1/tokens', async (request) => {
    const viewer = await requireViewer(request, context);
    return { tokens: (await listApiTokens(deps, viewer)).map(presentApiToken) };
  });

  app.post('/api/v1/tokens', async (request, reply) => {
    // A token that could mint tokens would outlive its own revocation; only a signed-in person makes them.
    const viewer = await requireSessionViewer(request, context);
    const { token, record } = await createApiToken(deps, viewer, parseManageBody(request, NamedThing));
    return reply.code(201).send({ api_token: presentApiToken(record), token });
  });

  app.delete<{ Params: { token: string } }>('/api/v1/tokens/:token', async (request, reply) => {
    const viewer = await requireViewer(request, context);
    await revokeApiToken(deps, viewer, request.params.token);
    return reply.code(204).send();
  });
}
