import { PassThrough, type Readable } from 'node:stream';
import { isCommitId } from './commit-id.js';
import { STDERR_LIMIT, ceilingFor, collectBounded, spawnGit, type GitContext } from './git-process.js';

/**
 * Streams `git archive` through a PassThrough rather than handing out git's stdout: the stream must
 * not end cleanly before git's exit status is known, or a failed archive would look like an empty one.
 */
export function streamArchive(context: GitContext, directory: string, sha: string): Readable {
  if (!isCommitId(sha)) return failedStream(`'${sha}' is not a full commit id`);
  const output = new PassThrough();
  const child = spawnGit(context, ['-C', directory, 'archive', '--format=tar.gz', '--end-of-options', sha], {
    ceiling: ceilingFor(directory),
  });
  child.stdin.end();
  const stderr = collectBounded(child.stderr, STDERR_LIMIT);
  child.stdout.pipe(output, { end: false });
  let exited = false;
  child.on('error', (error) => {
    exited = true;
    output.destroy(error);
  });
  child.on('close', (code, signal) => {
    exited = true;
    if (output.destroyed) return;
    if (code === 0) output.end();
    else output.destroy(new Error(`git archive ${sha} failed (${code ?? signal}): ${stderr().toString('utf8').trim()}`));
  });
  // A reader that goes away (a dropped download) must not leave git blocked on a full pipe.
  output.on('close', () => {
    if (!exited) child.kill('SIGKILL');
  });
  return output;
}

/** A stream that only errors, for archive requests refused before git runs. */
export function failedStream(message: string): Readable {
  const output = new PassThrough();
  output.destroy(new Error(message));
  return output;
}
