import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createManualClock, systemClock } from './clock.js';

describe('clocks', () => {
  it('moves a manual clock only when told to', () => {
    const clock = createManualClock(1000);
    assert.equal(clock.now(), 1000);
    clock.advance(500);
    assert.equal(clock.now(), 1500);
    clock.set(42);
    assert.equal(clock.now(), 42);
  });

  it('reads the system time', () => {
    const before = Date.now();
    const now = systemClock.now();
    assert.ok(now >= before && now <= Date.now());
  });
});
