import { errors } from '../errors.js';
import { newId } from '../ids.js';
import { compilePipeline } from '../pipeline-file/compile.js';
import { MAX_PIPELINE_FILE_BYTES, PIPELINE_FILE_NAME, type CompiledTask } from '../pipeline-file/types.js';
import type { Job, Project } from '../store/types.js';
import type { PipelineDeps } from './deps.js';
import { publishJobChange } from './events.js';

export interface JobRequest {
  sha: string;
  ref: string;
  base: string | null;
  actor: string;
  trigger: string;
}

const SHA_PATTERN = /^[0-9a-f]{40}$/;

/** Reads and compiles the pipeline file at the commit; the caller's words about the pipeline are never used. */
async function compileAtCommit(deps: PipelineDeps, project: Project, sha: string): Promise<CompiledTask[]> {
  const file = await deps.repos.readFile(project.repo, sha, PIPELINE_FILE_NAME, MAX_PIPELINE_FILE_BYTES);
  if (file.kind === 'missing') {
    throw errors.pipelineInvalid([{ path: PIPELINE_FILE_NAME, message: `no ${PIPELINE_FILE_NAME} at commit ${sha}` }]);
  }
  if (file.kind === 'too-large') {
    throw errors.pipelineInvalid([
      { path: PIPELINE_FILE_NAME, message: `the file is ${file.size} bytes; the limit is ${MAX_PIPELINE_FILE_BYTES}` },
    ]);
  }
  const result = compilePipeline(file.content.toString('utf8'));
  if (!result.ok) throw errors.pipelineInvalid(result.problems);
  return result.tasks;
}

/**
 * Creates a job from the pipeline file at `request.sha`: the commit must exist in the project's
 * repository (fetched if needed), the file must compile, and then the job and its tasks are stored in
 * one transaction with the project's next job number.
 */
export async function createJob(deps: PipelineDeps, project: Project, request: JobRequest): Promise<{ job: Job; tasks: number }> {
  if (!SHA_PATTERN.test(request.sha)) throw errors.commitUnusable(`${request.sha} is not a full 40-hex commit id`);
  // The reason carries git's own words on a failed fetch (credentials masked): the caller can act on them.
  const commit = await deps.repos.findCommit(project.repo, request.sha);
  if (!commit.found) throw errors.commitUnusable(commit.reason);
  const [tasks, commitMessage] = await Promise.all([
    compileAtCommit(deps, project, request.sha),
    deps.repos.commitSubject(project.repo, request.sha),
  ]);
  const job = await deps.store.insertJob(
    {
      projectId: project.id,
      ref: request.ref,
      headSha: request.sha,
      base: request.base,
      actor: request.actor,
      trigger: request.trigger,
      commitMessage,
      tasks,
    },
    { jobId: newId(), taskIds: tasks.map(() => newId()) },
    deps.clock.now(),
  );
  if (tasks.some((task) => task.needs.length === 0)) deps.work.notify();
  publishJobChange(deps.events, job);
  return { job, tasks: tasks.length };
}
