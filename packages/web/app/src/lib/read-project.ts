import { ApiError, pipeline, unwrap, type PipelineSchemas } from '../api/client';

export type Project = PipelineSchemas['Project'];

/**
 * The project as `GET /api/v1/projects/{p}` gives it (with `may_manage`), or null when this caller may
 * not read it: signed out (401) or not theirs to see (404). A public project's jobs stay readable then.
 */
export async function readProjectIfVisible(project: string): Promise<Project | null> {
  try {
    return (await unwrap(pipeline.GET('/api/v1/projects/{project}', { params: { path: { project } } }))).project;
  } catch (error) {
    if (error instanceof ApiError && (error.status === 401 || error.status === 404)) return null;
    throw error;
  }
}
