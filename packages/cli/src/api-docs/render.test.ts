import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { renderApiDocs } from './render.js';

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
