#!/usr/bin/env node
// Writes docs/api.md from the services' OpenAPI documents (compiled: run `npm run docs:api`, which builds first).
import { writeFileSync } from 'node:fs';
import { renderApiDocs } from '../packages/cli/dist/api-docs/render.js';

writeFileSync(new URL('../docs/api.md', import.meta.url), renderApiDocs());
console.log('wrote docs/api.md');
