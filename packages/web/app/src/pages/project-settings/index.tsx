import { useRoute } from 'preact-iso';
import { useState } from 'preact/hooks';
import { ApiError, pipeline, unwrap, type PipelineSchemas } from '../../api/client';
import { ErrorBox, Loading, PageHeader, SignInPrompt } from '../../components/common';
import { useSession } from '../../lib/session';
import { useResource } from '../../lib/use-resource';
import { useTitle } from '../../lib/use-title';
import { NotFound } from '../not-found';
import { DangerZone } from './danger-zone';
import { GeneralSettings } from './general';
import { TriggerSecret } from './trigger-secret';
import { Variables } from './variables';
import { WebhookSetup } from './webhook';
import './settings.css';

export type Project = PipelineSchemas['Project'];

function isNotFound(error: unknown): boolean {
  return error instanceof ApiError && error.status === 404;
}

/**
 * A project's settings, for those who may manage it (its owner, the realm's administrators). Everyone
 * else gets the 404 page, as the API answers them: a project one may not manage does not exist for them.
 */
export default function ProjectSettings() {
  const key = useRoute().params['project'] ?? '';
  const { session } = useSession();
  const [deleted, setDeleted] = useState<string | null>(null);
  const resource = useResource(`settings:${key}:${session?.user.id ?? ''}`, () =>
    session === null ? Promise.resolve(null) : unwrap(pipeline.GET('/api/v1/projects/{project}', { params: { path: { project: key } } })).then((answer) => answer.project),
  );
  useTitle(`Settings of ${key}`);

  if (session === null) return <SignInPrompt what="change a project's settings" />;
  if (deleted !== null) {
    return (
      <>
        <PageHeader title="Project deleted" />
        <p role="status">
          The project <strong>{deleted}</strong> and all its jobs, logs and artifacts were deleted. <a href="/">Back to the projects</a>
        </p>
      </>
    );
  }
  if (isNotFound(resource.error)) return <NotFound />;
  const project = resource.data;
  if (project === null) {
    return (
      <>
        <PageHeader title={`Settings of ${key}`} />
        {resource.error !== null ? <ErrorBox error={resource.error} title="The project could not be loaded" /> : <Loading what="the project" />}
      </>
    );
  }
  if (!project.may_manage) return <NotFound />;

  const base = `/projects/${encodeURIComponent(project.name)}`;
  return (
    <div class="project-settings">
      <nav class="breadcrumbs" aria-label="Breadcrumbs">
        <a href="/">Projects</a> / <a href={base}>{project.name}</a> / Settings
      </nav>
      <PageHeader title={`Settings of ${project.name}`} subtitle="Only the project's owner and the realm's administrators see this page." />
      <GeneralSettings project={project} onChanged={(next) => resource.set(() => next)} />
      <Variables project={project.name} />
      <TriggerSecret project={project.name} />
      <WebhookSetup project={project.name} />
      <DangerZone project={project.name} onDeleted={() => setDeleted(project.name)} />
    </div>
  );
}
