import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { readRange } from './ranges.js';

describe('readRange', () => {
  it('reads the three single-range forms', () => {
    assert.deepEqual(readRange('bytes=0-9', 100), { start: 0, end: 9 });
    assert.deepEqual(readRange('bytes=90-', 100), { start: 90, end: 99 });
    assert.deepEqual(readRange('bytes=-10', 100), { start: 90, end: 99 });
    assert.deepEqual(readRange('bytes=50-500', 100), { start: 50, end: 99 }, 'an end past the size is clamped');
    assert.deepEqual(readRange('bytes=-500', 100), { start: 0, end: 99 });
  });
  it('sends everything for no header or forms it does not serve', () => {
    assert.equal(readRange(undefined, 100), null);
    assert.equal(readRange('bytes=0-1,5-6', 100), null);
    assert.equal(readRange('items=0-1', 100), null);
    assert.equal(readRange('bytes=-', 100), null);
  });
  it('reports ranges that cannot be satisfied', () => {
    assert.equal(readRange('bytes=100-', 100), 'unsatisfiable');
    assert.equal(readRange('bytes=5-2', 100), 'unsatisfiable');
    assert.equal(readRange('bytes=-0', 100), 'unsatisfiable');
    assert.equal(readRange('bytes=0-', 0), 'unsatisfiable');
  });
});
