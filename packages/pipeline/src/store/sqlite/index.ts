import type { PipelineStore } from '../types.js';
import { createApiTokenMethods } from './api-tokens.js';
import { createArtifactMethods } from './artifacts.js';
import { openDatabase } from './database.js';
import { createJobManagementMethods } from './job-management.js';
import { createEventMethods } from './events.js';
import { createJobMethods } from './jobs.js';
import { createManageMethods } from './manage.js';
import { createProjectMethods } from './projects.js';
import { createTaskMethods } from './tasks.js';
import { createWorkerOfferMethods } from './worker-offers.js';

/**
 * The pipeline store on one SQLite file. better-sqlite3 is synchronous: each method does all its work
 * before it returns its (already settled) promise, and each Atomic method is one IMMEDIATE transaction,
 * which serialises it against other connections to the file (the admin CLI) as well.
 */
export function openSqliteStore(path: string): PipelineStore {
  const db = openDatabase(path);
  return {
    ...createProjectMethods(db),
    ...createJobMethods(db),
    ...createJobManagementMethods(db),
    ...createWorkerOfferMethods(db),
    ...createTaskMethods(db),
    ...createArtifactMethods(db),
    ...createManageMethods(db),
    ...createApiTokenMethods(db),
    ...createEventMethods(db),
    close: async () => {
      db.close();
    },
  };
}
