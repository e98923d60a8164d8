export type PushDelivery =
  | { kind: 'push'; sha: string; base: string; ref: string; actor: string }
  | { kind: 'ignored'; reason: string }
  | { kind: 'invalid'; message: string };

export type HeaderBag = Record<string, string | string[] | undefined>;

/**
 * Reads a push delivery: our normalised shape `{sha, base, ref, actor}`, GitHub's push event, GitLab's
 * push and tag push hooks, Gitea's and Forgejo's push event. Deletions and pings are `ignored`; a payload
 * with no usable commit is `invalid`. Headers are lower-cased (as node gives them). (Being implemented.)
 */
export function readPushDelivery(_headers: HeaderBag, _body: unknown): PushDelivery {
  return { kind: 'invalid', message: 'not implemented' };
}
