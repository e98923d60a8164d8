import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { waitingReason, type WorkerOffer } from './waiting-reason.js';

const offer = (arches: string[], features: string[] = [], ownerUserId: string | null = null): WorkerOffer => ({ ownerUserId, arches, features });
const amd64 = { arch: 'amd64', requires: [] as string[] };

describe('waitingReason', () => {
  it('says no worker is connected when none is live', () => {
    assert.equal(waitingReason(amd64, 'alice', []), 'no worker is connected');
  });

  it("counts only shared workers and the project owner's own", () => {
    assert.match(waitingReason(amd64, 'alice', [offer(['amd64'], [], 'bob')]) ?? '', /only other users' own workers/);
    assert.equal(waitingReason(amd64, 'alice', [offer(['amd64'], [], 'alice')]), null);
    assert.equal(waitingReason(amd64, null, [offer(['amd64'])]), null);
  });

  it('names a missing arch', () => {
    assert.equal(waitingReason({ arch: 'arm64', requires: [] }, null, [offer(['amd64'])]), 'no worker offers arch arm64');
  });

  it('names the features no worker with the arch offers', () => {
    const task = { arch: 'amd64', requires: ['gpu', 'docker'] };
    assert.equal(waitingReason(task, null, [offer(['amd64'])]), 'no worker offers the features gpu, docker');
    assert.equal(waitingReason(task, null, [offer(['amd64'], ['docker']), offer(['arm64'], ['gpu'])]), 'no worker offers the feature gpu');
    assert.equal(
      waitingReason(task, null, [offer(['amd64'], ['docker']), offer(['amd64'], ['gpu'])]),
      'no worker offers arch amd64 with all of the features gpu, docker',
    );
    assert.equal(waitingReason(task, null, [offer(['arm64', 'amd64'], ['docker', 'gpu', 'kvm'])]), null);
  });
});
