import fastifyStatic from '@fastify/static';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { WEB_BUILD_DIRECTORY } from '@conveyor/web';
import type { FastifyInstance, FastifyReply } from 'fastify';

// The web interface is a single-page application built into WEB_BUILD_DIRECTORY. Vite names every
// asset under /assets/ by a hash of its content, so those are cached for a year; index.html names the
// current assets and must be revalidated on every load, and it answers every client route (/projects/x,
// /workers, ...) so that a reload or a shared link opens the page the router draws. /api/ paths never
// fall back to it: an unknown API path stays the pipeline's JSON 404.

const IMMUTABLE = 'public, max-age=31536000, immutable';
const REVALIDATE = 'no-cache';
// The application loads only its own scripts and styles and talks only to this origin.
const CONTENT_SECURITY_POLICY = "default-src 'self'; img-src 'self' data:; object-src 'none'; base-uri 'none'; frame-ancestors 'none'; form-action 'self'";

const NOT_BUILT_PAGE = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Conveyor: web interface not built</title></head>
<body><main><h1>The web interface is not built</h1><p>Build it with <code>npm run build -w @conveyor/web</code>
(<code>npm install</code> does it), then restart this server. The HTTP APIs work without it: see <a href="/api/v1/openapi.json">/api/v1/openapi.json</a>.</p></main></body></html>`;

/**
 * Paths the page must never answer: the APIs (their own JSON 404) and missing assets. A page still
 * open from before an upgrade asks for the chunks its build named; answering those with HTML would
 * fail as a wrong MIME type instead of a plain 404.
 */
function isNeverThePage(url: string): boolean {
  return url === '/api' || url.startsWith('/api/') || url.startsWith('/api?') || url.startsWith('/assets/');
}

function setPageHeaders(reply: FastifyReply): FastifyReply {
  return reply
    .header('cache-control', REVALIDATE)
    .header('content-security-policy', CONTENT_SECURITY_POLICY)
    .header('x-content-type-options', 'nosniff')
    .header('referrer-policy', 'same-origin');
}

/** Serves the built web interface and its client-route fallback on the combined server. */
export async function registerWebApp(app: FastifyInstance, options: { directory?: string } = {}): Promise<void> {
  const directory = options.directory ?? WEB_BUILD_DIRECTORY;
  const built = existsSync(join(directory, 'index.html'));
  if (built) {
    await app.register(fastifyStatic, {
      root: directory,
      // One route per built file, found at start: unknown paths reach the fallback below, not a 404 of the plugin.
      wildcard: false,
      index: false,
      serveDotFiles: false,
      // The build writes .br and .gz beside each text asset (vite.config.js); the smallest accepted one is sent.
      preCompressed: true,
      setHeaders(reply, path) {
        reply.header('cache-control', path.includes('/assets/') ? IMMUTABLE : REVALIDATE);
        reply.header('x-content-type-options', 'nosniff');
      },
    });
  }
  app.get('/*', async (request, reply) => {
    if (isNeverThePage(request.url)) return reply.callNotFound();
    setPageHeaders(reply);
    if (!built) return reply.code(503).type('text/html; charset=utf-8').send(NOT_BUILT_PAGE);
    return reply.sendFile('index.html', directory, { cacheControl: false });
  });
}
