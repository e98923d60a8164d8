import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { renderApiDocs } from './render.js';
import { renderWebApiTypes, WEB_API_TYPES } from './web-types.js';

const API_PAGE = new URL('../../../../docs/api.md', import.meta.url);

describe('docs/api.md', () => {
  it('is what the OpenAPI documents render to (run `npm run docs:api` after changing them)', () => {
    assert.equal(readFileSync(API_PAGE, 'utf8'), renderApiDocs(), 'docs/api.md is out of date: run `npm run docs:api`');
  });

  it('names every endpoint of both services', () => {
    const page = renderApiDocs();
    for (const heading of ['### POST `/api/v1/projects/{project}/trigger`', '### POST `/api/v1/tasks/{task}/artifacts`', '### POST `/api/v1/login/password`', '### GET `/api/v1/session`']) {
      assert.ok(page.includes(heading), heading);
    }
    assert.ok(page.includes('`identifier`'));
  });
});

describe('the web interface API types', () => {
  it('are what the OpenAPI documents generate (run `npm run docs:api` after changing them)', async () => {
    const types = await renderWebApiTypes();
    for (const [service, path] of Object.entries(WEB_API_TYPES)) {
      const file = new URL(`../../../../${path}`, import.meta.url);
      assert.equal(readFileSync(file, 'utf8'), types[service as keyof typeof WEB_API_TYPES], `${path} is out of date: run \`npm run docs:api\``);
    }
  });
});
