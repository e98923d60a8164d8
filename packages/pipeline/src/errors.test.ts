import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { ERROR_CODES, errorBody, errors } from './errors.js';
import { findRepositoryRoot } from './testing/repository-root.js';

describe('the error catalogue', () => {
  it('is documented code for code in docs/pipeline-service.md', () => {
    const page = readFileSync(join(findRepositoryRoot(), 'docs/pipeline-service.md'), 'utf8');
    const section = page.slice(page.indexOf('## Error codes'), page.indexOf('## Decisions'));
    const documented = [...section.matchAll(/^\| `([a-z_]+)` \|/gm)].map((match) => match[1]);
    assert.deepEqual(documented.sort(), Object.keys(ERROR_CODES).sort());
  });

  it('keeps the spec\'s {"error": message} and adds the code and the extra fields', () => {
    assert.deepEqual(errorBody(errors.logGap(12)), { error: 'log gap: the log is 12 bytes long', code: 'log_gap', expected_offset: 12 });
    assert.deepEqual(errorBody(errors.notFound()), { error: 'not found', code: 'not_found' });
  });
});
