#!/usr/bin/env node
// Writes docs/api.md and the web interface's API types from the services' OpenAPI documents
// (compiled: run `npm run docs:api`, which builds first).
import { writeFileSync } from 'node:fs';
import { renderApiDocs } from '../packages/cli/dist/api-docs/render.js';
import { renderWebApiTypes, WEB_API_TYPES } from '../packages/cli/dist/api-docs/web-types.js';

const root = new URL('../', import.meta.url);
writeFileSync(new URL('docs/api.md', root), renderApiDocs());
console.log('wrote docs/api.md');
const types = await renderWebApiTypes();
for (const [service, path] of Object.entries(WEB_API_TYPES)) {
  writeFileSync(new URL(path, root), types[service]);
  console.log(`wrote ${path}`);
}
