import type { Project } from '../store/types.js';
import type { PipelineDeps } from './deps.js';
import { requireManageable } from './manage-projects.js';
import type { SessionViewer } from './policies.js';

/** How to make each kind of git server call the project's trigger URL: steps a person follows, in order. */
export interface WebhookSetup {
  url: string;
  /** The secret's place in the steps; the secret itself is shown only when created or rotated. */
  secretHint: string;
  steps: { gitHook: string[]; github: string[]; gitlab: string[]; gitea: string[]; forgejo: string[] };
}

const SECRET_HINT =
  'the trigger secret shown when the project was created or its secret last rotated (POST /api/v1/projects/{project}/trigger-secret makes a new one)';

/** Single quotes for a POSIX shell: the base URL comes from configuration or a validated Host, but quoting costs nothing. */
function shellQuote(value: string): string {
  return `'${value.replace(/'/g, `'\\''`)}'`;
}

function giteaLike(product: 'Gitea' | 'Forgejo', url: string): string[] {
  return [
    `Open the repository, then Settings → Webhooks → Add webhook → ${product}.`,
    `Target URL: ${url}`,
    'HTTP method: POST. POST content type: application/json.',
    `Secret: ${SECRET_HINT}. ${product} signs each delivery with X-Hub-Signature-256.`,
    'Trigger on: "Push events". Deletions arrive as a separate "delete" event, which is ignored.',
    'Save the webhook, then push a commit: the job appears in the project.',
  ];
}

/** The instructions for one project, with `baseUrl` (PIPELINE_PUBLIC_URL or the request's validated origin). */
export function describeWebhookSetup(project: Project, baseUrl: string): WebhookSetup {
  const url = `${baseUrl}/api/v1/projects/${encodeURIComponent(project.name)}/trigger`;
  const hookCommand = `exec conveyor pipeline hook post-receive --url ${shellQuote(baseUrl)} --project ${shellQuote(project.name)} --secret-file /etc/conveyor/${project.name}.secret`;
  return {
    url,
    secretHint: SECRET_HINT,
    steps: {
      gitHook: [
        `On the git server, write the trigger secret to /etc/conveyor/${project.name}.secret (one line) and make it readable only by the user the git server runs as (chmod 600).`,
        'In the bare repository, create hooks/post-receive with these two lines and make it executable (chmod +x hooks/post-receive):',
        '#!/bin/sh',
        hookCommand,
        'The conveyor command must be on the PATH of the git server user (npm install -g @conveyor/cli, or give its full path).',
        'Push a commit: the hook prints one "remote: triggered <ref> <sha>: job <id>" line per updated ref.',
      ],
      github: [
        'Open the repository on GitHub, then Settings → Webhooks → Add webhook.',
        `Payload URL: ${url}`,
        'Content type: application/json (the default, application/x-www-form-urlencoded, is not read).',
        `Secret: ${SECRET_HINT}. GitHub signs each delivery with X-Hub-Signature-256.`,
        'Which events: "Just the push event". The ping GitHub sends on saving is answered 200 and ignored, so the hook shows as working.',
        'Save the webhook, then push a commit: the job appears in the project.',
      ],
      gitlab: [
        'Open the project on GitLab, then Settings → Webhooks → Add new webhook.',
        `URL: ${url}`,
        `Secret token: ${SECRET_HINT}. GitLab sends it as X-Gitlab-Token (GitLab does not sign deliveries).`,
        'Trigger: "Push events" (all branches, or a filter) and "Tag push events". GitLab always sends JSON.',
        'Save the webhook, then push a commit: the job appears in the project.',
      ],
      gitea: giteaLike('Gitea', url),
      forgejo: giteaLike('Forgejo', url),
    },
  };
}

export async function webhookSetupFor(deps: PipelineDeps, viewer: SessionViewer, key: string, baseUrl: string): Promise<WebhookSetup> {
  return describeWebhookSetup(await requireManageable(deps, viewer, key), baseUrl);
}
