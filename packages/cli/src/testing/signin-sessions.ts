// Test support: a small in-process SessionResolver over a real sign-in service mounted on the same
// server. `resolve` asks the sign-in plugin's own GET /api/v1/session (same cookie, same Host), so the
// answer is the real session check. The real resolver of `conveyor serve` replaces this one.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { SessionResolver, SessionViewer } from '@conveyor/pipeline';
import type { SigninService } from '@conveyor/signin';

interface SessionAnswer {
  realm: { slug: string };
  user: { id: string; username: string };
  roles: string[];
}

/** `host[:port]` or `[v6]:port` without the port, lower case. */
function hostName(header: string | undefined): string {
  const value = (header ?? '').trim().toLowerCase();
  return value.startsWith('[') ? value.slice(0, value.indexOf(']') + 1) : (value.split(':')[0] ?? '');
}

export function createTestSessionResolver(server: () => FastifyInstance, signin: SigninService): SessionResolver {
  const { store } = signin.deps;
  return {
    async resolve(request: FastifyRequest): Promise<SessionViewer | null> {
      const cookie = request.headers.cookie;
      if (cookie === undefined) return null;
      const answer = await server().inject({ method: 'GET', url: '/api/v1/session', headers: { cookie, host: request.headers.host ?? '' } });
      if (answer.statusCode !== 200) return null;
      const body = answer.json<SessionAnswer>();
      return { userId: body.user.id, username: body.user.username, realm: body.realm.slug, roles: body.roles };
    },
    async realmOf(request: FastifyRequest): Promise<string | null> {
      return (await store.system.findRealmByHost(hostName(request.headers.host)))?.slug ?? null;
    },
    async rolesOf(realm: string, userId: string) {
      const found = await store.system.findRealmBySlug(realm);
      const realmStore = found === undefined ? undefined : await store.realm(found.id);
      const membership = await realmStore?.findMembership(userId);
      const user = await store.system.findUserById(userId);
      if (realmStore === undefined || membership?.status !== 'active' || user?.status !== 'active') return null;
      return { username: user.username, roles: await realmStore.listRoleSlugs(userId) };
    },
  };
}
