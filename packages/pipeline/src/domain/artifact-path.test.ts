import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { sanitizeArtifactPath } from './artifact-path.js';

describe('sanitizeArtifactPath', () => {
  it('strips traversal and empty segments instead of honouring them', () => {
    assert.equal(sanitizeArtifactPath('dist/app.tgz'), 'dist/app.tgz');
    assert.equal(sanitizeArtifactPath('../../../etc/passwd'), 'etc/passwd');
    assert.equal(sanitizeArtifactPath('/abs//./path/'), 'abs/path');
    assert.equal(sanitizeArtifactPath('a\\..\\b'), 'a/b');
    assert.equal(sanitizeArtifactPath('%2E%2E%2Fx'), 'x');
    assert.equal(sanitizeArtifactPath('...'), '...', 'three dots is a legal name');
  });
  it('decodes percent-encoded UTF-8', () => {
    assert.equal(sanitizeArtifactPath('r%C3%A9sum%C3%A9.pdf'), 'résumé.pdf');
    assert.equal(sanitizeArtifactPath('100%25.txt'), '100%.txt');
  });
  it('refuses what leaves nothing, malformed encoding, control characters and overlong paths', () => {
    for (const bad of ['', '/', '../..', './.', '%E0%A4%A', 'a%00b', 'line%0Abreak', 'x'.repeat(1025)]) {
      assert.equal(sanitizeArtifactPath(bad), null, JSON.stringify(bad));
    }
  });
});

describe('sanitizeArtifactPath with secrets', () => {
  it('masks secret values after decoding and before splitting, longest first', () => {
    assert.equal(sanitizeArtifactPath('out/hunter22-x/log.txt', ['hunter22']), 'out/***-x/log.txt');
    assert.equal(sanitizeArtifactPath('out/%68unter22.txt', ['hunter22']), 'out/***.txt', 'percent-encoded');
    assert.equal(sanitizeArtifactPath('a/sec/ret99/b', ['sec/ret99']), 'a/***/b', 'a secret holding a slash');
    assert.equal(sanitizeArtifactPath('abcdefgh-long.txt', ['abcdefgh', 'abcdefgh-long']), '***.txt');
  });
});
