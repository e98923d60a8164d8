import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import {
  changeProject,
  createOwnedProject,
  deleteProject,
  deleteVariable,
  listProjectsFor,
  listVariablesOf,
  putVariable,
  rotateTriggerSecret,
  viewProject,
} from '../../domain/manage-projects.js';
import { webhookSetupFor } from '../../domain/webhook-setup.js';
import { baseUrlOf } from '../base-url.js';
import type { HttpContext } from '../context.js';
import { parseManageBody, parsePage } from '../manage-input.js';
import { presentProjectListing, presentProjectView, presentProjectWithSecret, presentVariable, presentWebhookSetup } from '../present-manage.js';
import { requireViewer } from '../viewer.js';

// Lengths well past any real value, so that a huge field is refused here and not passed on.
const name = z.string().max(100);
const repo = z.string().max(2048);
const visibility = z.enum(['private', 'public']);

const ProjectCreation = z.strictObject({ name, repo, visibility: visibility.optional() });
const ProjectChanges = z.strictObject({ name: name.optional(), repo: repo.optional(), visibility: visibility.optional(), enabled: z.boolean().optional() });
const VariableValue = z.strictObject({ value: z.string().max(64 * 1024), secret: z.boolean() });

type ProjectParams = { project: string };

/** Projects, their variables, their trigger secret and webhook setup: for people (session or API token). */
export function registerManageProjectRoutes(app: FastifyInstance, context: HttpContext): void {
  const { deps } = context;

  app.get('/api/v1/projects', async (request) => {
    const viewer = await requireViewer(request, context);
    const page = await listProjectsFor(deps, viewer, parsePage(request.query));
    return { projects: page.listings.map(presentProjectListing), next_cursor: page.nextCursor };
  });

  app.post('/api/v1/projects', async (request, reply) => {
    const viewer = await requireViewer(request, context);
    const project = await createOwnedProject(deps, viewer, parseManageBody(request, ProjectCreation));
    request.log.info({ project: project.name, owner: viewer.userId }, 'project created');
    return reply.code(201).send({ project: presentProjectWithSecret(project) });
  });

  app.get<{ Params: ProjectParams }>('/api/v1/projects/:project', async (request) => {
    const viewer = await requireViewer(request, context);
    return { project: presentProjectView(await viewProject(deps, viewer, request.params.project)) };
  });

  app.patch<{ Params: ProjectParams }>('/api/v1/projects/:project', async (request) => {
    const viewer = await requireViewer(request, context);
    const project = await changeProject(deps, viewer, request.params.project, parseManageBody(request, ProjectChanges));
    return { project: presentProjectView({ project, lastJob: null, manageable: true }) };
  });

  app.delete<{ Params: ProjectParams }>('/api/v1/projects/:project', async (request, reply) => {
    const viewer = await requireViewer(request, context);
    const project = await deleteProject(deps, viewer, request.params.project);
    request.log.info({ project: project.name, by: viewer.userId }, 'project deleted');
    return reply.code(204).send();
  });

  app.get<{ Params: ProjectParams }>('/api/v1/projects/:project/variables', async (request) => {
    const viewer = await requireViewer(request, context);
    return { variables: (await listVariablesOf(deps, viewer, request.params.project)).map(presentVariable) };
  });

  app.put<{ Params: ProjectParams & { name: string } }>('/api/v1/projects/:project/variables/:name', async (request) => {
    const viewer = await requireViewer(request, context);
    const body = parseManageBody(request, VariableValue);
    return { variable: presentVariable(await putVariable(deps, viewer, request.params.project, { name: request.params.name, ...body })) };
  });

  app.delete<{ Params: ProjectParams & { name: string } }>('/api/v1/projects/:project/variables/:name', async (request, reply) => {
    const viewer = await requireViewer(request, context);
    await deleteVariable(deps, viewer, request.params.project, request.params.name);
    return reply.code(204).send();
  });

  app.post<{ Params: ProjectParams }>('/api/v1/projects/:project/trigger-secret', async (request) => {
    const viewer = await requireViewer(request, context);
    const project = await rotateTriggerSecret(deps, viewer, request.params.project);
    request.log.info({ project: project.name, by: viewer.userId }, 'trigger secret rotated');
    return { project: presentProjectWithSecret(project) };
  });

  app.get<{ Params: ProjectParams }>('/api/v1/projects/:project/webhook', async (request) => {
    const viewer = await requireViewer(request, context);
    return presentWebhookSetup(await webhookSetupFor(deps, viewer, request.params.project, baseUrlOf(request, deps.config.publicUrl)));
  });
}
