export type PushDelivery =
  | { kind: 'push'; sha: string; base: string; ref: string; actor: string }
  // ref and actor are kept when the payload names them, so an ignored delivery can still be logged.
  | { kind: 'ignored'; reason: string; ref?: string; actor?: string }
  | { kind: 'invalid'; message: string };

export type HeaderBag = Record<string, string | string[] | undefined>;

type Json = Record<string, unknown>;

const ZERO_SHA = '0'.repeat(40);
/**
 * Hex is accepted in either case and lower-cased: no service sends upper case, but a hand-written
 * hook might, it names the same object, and git and the rest of the service compare lower case.
 */
const HEX_SHA = /^[0-9a-fA-F]{40}$/;
/** The same bounds as deliberate job creation (`POST /jobs`). */
const MAX_REF_LENGTH = 1024;
const MAX_ACTOR_LENGTH = 256;
const NO_COMMIT = 'no usable commit in the payload';

/**
 * Reads a push delivery: our normalised shape `{sha, base, ref, actor}`, GitHub's push event, GitLab's
 * push and tag push hooks, Gitea's and Forgejo's push event. Deletions and pings are `ignored`; a payload
 * with no usable commit is `invalid`. Headers are lower-cased (as node gives them).
 */
export function readPushDelivery(headers: HeaderBag, body: unknown): PushDelivery {
  if (!isObject(body)) return { kind: 'invalid', message: 'the body must be a JSON object' };
  // Gitea and Forgejo also send X-GitHub-Event, so their own headers must be looked at first.
  const giteaEvent = header(headers, 'x-forgejo-event') ?? header(headers, 'x-gitea-event');
  if (giteaEvent !== undefined) return readGiteaDelivery(giteaEvent, body);
  const gitlabEvent = header(headers, 'x-gitlab-event');
  if (gitlabEvent !== undefined) return readGitlabDelivery(gitlabEvent, body);
  const githubEvent = header(headers, 'x-github-event');
  if (githubEvent !== undefined) return readGithubDelivery(githubEvent, body);
  return readNormalisedDelivery(body);
}

function readGithubDelivery(event: string, body: Json): PushDelivery {
  if (event === 'ping') return { kind: 'ignored', reason: 'GitHub ping' };
  if (event !== 'push') return { kind: 'ignored', reason: `GitHub event '${event}' is not a push` };
  const ref = text(body.ref);
  const actor = text(field(body.pusher, 'name')) || text(field(body.sender, 'login'));
  const after = text(body.after);
  if (body.deleted === true || isZeroSha(after)) return ignoredDeletion(ref, actor);
  // For an annotated tag `after` is the tag object; the commit it points at is head_commit.
  const headCommit = text(field(body.head_commit, 'id'));
  const sha = ref.startsWith('refs/tags/') && headCommit !== '' && headCommit !== after ? headCommit : after;
  return finishPush(sha, text(body.before), ref, actor);
}

function readGitlabDelivery(event: string, body: Json): PushDelivery {
  if (event !== 'Push Hook' && event !== 'Tag Push Hook') return { kind: 'ignored', reason: `GitLab event '${event}' is not a push` };
  const ref = text(body.ref);
  const actor = text(body.user_username);
  // checkout_sha is the commit even for an annotated tag, where `after` is the tag object.
  if (isZeroSha(text(body.after)) || body.checkout_sha === null) return ignoredDeletion(ref, actor);
  return finishPush(text(body.checkout_sha), text(body.before), ref, actor);
}

function readGiteaDelivery(event: string, body: Json): PushDelivery {
  if (event === 'delete') {
    // Gitea reports deletions as their own event, with the short ref name and its kind beside it.
    return ignoredDeletion(fullRefName(text(body.ref), text(body.ref_type)), text(field(body.sender, 'login')));
  }
  if (event !== 'push') return { kind: 'ignored', reason: `Gitea/Forgejo event '${event}' is not a push` };
  const ref = text(body.ref);
  const actor = text(field(body.pusher, 'login')) || text(field(body.pusher, 'username')) || text(field(body.sender, 'login'));
  const after = text(body.after);
  if (isZeroSha(after)) return ignoredDeletion(ref, actor);
  return finishPush(after, text(body.before), ref, actor);
}

/** Our own shape (the post-receive hook's): strict, since we wrote the sender. */
function readNormalisedDelivery(body: Json): PushDelivery {
  const { sha, base = '', ref = '', actor = '' } = body;
  if (typeof sha !== 'string' || !HEX_SHA.test(sha)) return { kind: 'invalid', message: 'sha must be a 40-hex commit id' };
  if (typeof base !== 'string' || (base !== '' && !HEX_SHA.test(base))) {
    return { kind: 'invalid', message: 'base must be a 40-hex commit id or an empty string' };
  }
  if (typeof ref !== 'string') return { kind: 'invalid', message: 'ref must be a string' };
  if (typeof actor !== 'string') return { kind: 'invalid', message: 'actor must be a string' };
  if (isZeroSha(sha)) return ignoredDeletion(ref, actor);
  return finishPush(sha, base, ref, actor);
}

/** The checks every source shares: a usable commit, a base that is a commit or nothing, bounded strings. */
function finishPush(sha: string, before: string, ref: string, actor: string): PushDelivery {
  if (!HEX_SHA.test(sha) || isZeroSha(sha)) return { kind: 'invalid', message: NO_COMMIT };
  if (ref.length > MAX_REF_LENGTH) return { kind: 'invalid', message: `ref is longer than ${MAX_REF_LENGTH} characters` };
  if (actor.length > MAX_ACTOR_LENGTH) return { kind: 'invalid', message: `actor is longer than ${MAX_ACTOR_LENGTH} characters` };
  // A new branch or tag has no previous commit: services send 40 zeros, we say ''.
  const base = HEX_SHA.test(before) && !isZeroSha(before) ? before.toLowerCase() : '';
  return { kind: 'push', sha: sha.toLowerCase(), base, ref, actor };
}

function ignoredDeletion(ref: string, actor: string): PushDelivery {
  return { kind: 'ignored', reason: `deletion of ${ref === '' ? 'a ref' : ref}`, ref, actor };
}

function fullRefName(ref: string, refType: string): string {
  if (ref.startsWith('refs/')) return ref;
  if (refType === 'branch') return `refs/heads/${ref}`;
  if (refType === 'tag') return `refs/tags/${ref}`;
  return ref;
}

function header(headers: HeaderBag, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function field(value: unknown, name: string): unknown {
  return isObject(value) ? value[name] : undefined;
}

/** Third-party payloads are read leniently: a field of the wrong type counts as absent. */
function text(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

function isZeroSha(value: string): boolean {
  return value === ZERO_SHA;
}
