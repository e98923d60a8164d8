import type { CatFilePool } from './cat-file.js';
import { isCommitId } from './commit-id.js';

/** A commit object larger than this (a huge message) is not read: its subject is then unknown. */
const MAX_COMMIT_BYTES = 64 * 1024;
/** Subjects are shown in lists; a longer one is cut (with an ellipsis) rather than stored whole. */
export const MAX_SUBJECT_CHARS = 300;

/**
 * The commit's subject as `git log --format=%s` gives it: the message's first paragraph with its
 * lines joined by spaces. Read from the commit object through the repository's long-lived
 * `git cat-file` process (the one job creation already uses), so it costs no new git process.
 */
export async function readCommitSubject(catFile: CatFilePool, directory: string, sha: string): Promise<string | null> {
  if (!isCommitId(sha)) return null;
  const object = await catFile.contents(directory, `${sha}^{commit}`, MAX_COMMIT_BYTES);
  if (object === null || object.type !== 'commit' || object.content === null) return null;
  return subjectOf(object.content.toString('utf8'));
}

/** The first paragraph after the headers (which end at the first empty line), or null when there is none. */
export function subjectOf(commitObject: string): string | null {
  const bodyStart = commitObject.indexOf('\n\n');
  if (bodyStart === -1) return null;
  const message = commitObject.slice(bodyStart + 2).replace(/\r/g, '');
  const paragraph = message.replace(/^\n+/, '').split(/\n\s*\n/)[0] ?? '';
  const subject = paragraph.split('\n').map((line) => line.trim()).filter((line) => line !== '').join(' ');
  if (subject === '') return null;
  return subject.length > MAX_SUBJECT_CHARS ? `${subject.slice(0, MAX_SUBJECT_CHARS - 1)}…` : subject;
}
