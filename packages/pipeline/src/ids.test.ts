import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { newId } from './ids.js';

describe('newId', () => {
  it('draws 23 base64url characters that never start like a command-line option', () => {
    const ids = Array.from({ length: 5000 }, () => newId());
    for (const id of ids) assert.match(id, /^[A-Za-z0-9][A-Za-z0-9_-]{22}$/);
    assert.equal(new Set(ids).size, ids.length);
  });
});
