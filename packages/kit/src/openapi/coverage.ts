import type { OpenApiDocument } from './types.js';

/** `METHOD /path/{param}`: a route as the document names it. */
export type RouteKey = string;

/** What `recordRoutes` needs of a Fastify instance; kept structural so this package depends on no framework. */
export interface RouteSource {
  addHook(name: 'onRoute', hook: (route: { method: string | string[]; url: string }) => void): unknown;
}

const DOCUMENTED_METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;

/** Fastify's `/tasks/:task/*` in OpenAPI's spelling, `/tasks/{task}/*`. */
export function toOpenApiPath(url: string): string {
  return url.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
}

/**
 * Records every route registered on the app from now on (call before registering the service).
 * HEAD routes are left out: Fastify adds one for every GET.
 */
export function recordRoutes(app: RouteSource): RouteKey[] {
  const routes: RouteKey[] = [];
  app.addHook('onRoute', (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    for (const method of methods) if (method !== 'HEAD') routes.push(`${method} ${toOpenApiPath(route.url)}`);
  });
  return routes;
}

/** Every operation of the document; a catch-all is `ALL <path>` (Fastify's `all` registers every method). */
function documentedRoutes(document: OpenApiDocument): Set<RouteKey> {
  const routes = new Set<RouteKey>();
  for (const [path, item] of Object.entries(document.paths)) {
    for (const method of DOCUMENTED_METHODS) if (item[method] !== undefined) routes.add(`${method.toUpperCase()} ${path}`);
  }
  for (const catchAll of document['x-catch-all'] ?? []) routes.add(`ALL ${catchAll.path}`);
  return routes;
}

/** Routes the app has and the document lacks, and the other way round. */
export function compareRoutes(registered: RouteKey[], document: OpenApiDocument): { undocumented: RouteKey[]; unregistered: RouteKey[] } {
  const documented = documentedRoutes(document);
  const present = new Set(registered.map((route) => (route.endsWith('/*') ? `ALL ${route.slice(route.indexOf(' ') + 1)}` : route)));
  return {
    undocumented: [...present].filter((route) => !documented.has(route)).sort(),
    unregistered: [...documented].filter((route) => !present.has(route)).sort(),
  };
}
