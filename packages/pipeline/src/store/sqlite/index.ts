import type { PipelineStore } from '../types.js';
import { createArtifactMethods } from './artifacts.js';
import { openDatabase } from './database.js';
import { createJobMethods } from './jobs.js';
import { createProjectMethods } from './projects.js';
import { createTaskMethods } from './tasks.js';

/** The pipeline store on one SQLite file (better-sqlite3: synchronous, so each transaction is atomic in-process too). */
export function openSqliteStore(path: string): PipelineStore {
  const db = openDatabase(path);
  return {
    ...createProjectMethods(db),
    ...createJobMethods(db),
    ...createTaskMethods(db),
    ...createArtifactMethods(db),
    close: () => db.close(),
  };
}
