import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Masker } from './masking.js';

function maskInPieces(values: string[], input: string, sizes: number[]): string {
  const masker = new Masker(values);
  const bytes = Buffer.from(input);
  const out: Buffer[] = [];
  let position = 0;
  let index = 0;
  while (position < bytes.length) {
    const size = sizes[index++ % sizes.length]!;
    out.push(masker.push(bytes.subarray(position, position + size)));
    position += size;
  }
  out.push(masker.end());
  return Buffer.concat(out).toString();
}

test('masks a secret inside one chunk', () => {
  assert.equal(maskInPieces(['hunter2'], 'pw=hunter2 done', [100]), 'pw=*** done');
});

test('masks a secret split across reads at every possible boundary', () => {
  const input = 'before s3cr3t-value middle s3cr3t-value after';
  for (let size = 1; size <= input.length; size++) {
    assert.equal(maskInPieces(['s3cr3t-value'], input, [size]), 'before *** middle *** after', `size ${size}`);
  }
  assert.equal(maskInPieces(['s3cr3t-value'], input, [3, 1, 7, 2]), 'before *** middle *** after');
});

test('prefers the longer of two overlapping secrets and keeps unrelated bytes intact', () => {
  assert.equal(maskInPieces(['abc', 'abcdef'], 'xxabcdefyyabczz', [2]), 'xx***yy***zz');
  assert.equal(maskInPieces(['aa'], 'aaaaa', [1]), '******a');
});

test('passes output through untouched when nothing is masked, including an empty value', () => {
  const masker = new Masker(['']);
  const chunk = Buffer.from('plain');
  assert.equal(masker.push(chunk), chunk);
  assert.equal(masker.end().length, 0);
});

test('holds back only a suffix that could start a secret, never more', () => {
  const masker = new Masker(['topsecret']);
  assert.equal(masker.push(Buffer.from('hello world top')).toString(), 'hello world ');
  assert.equal(masker.pending, 3);
  assert.equal(masker.push(Buffer.from('secret!')).toString(), '***!');
  assert.equal(masker.push(Buffer.from('tops')).toString(), '');
  assert.equal(masker.push(Buffer.from('oil')).toString(), 'topsoil');
  assert.equal(masker.end().toString(), '');
});

test('returns output at once when no part of it could start a secret, however long the secret', () => {
  const masker = new Masker(['x'.repeat(4096), 'short-one']);
  const line = Buffer.from('added 1312 packages in 80s\n');
  assert.equal(masker.push(line).toString(), line.toString());
  assert.equal(masker.pending, 0);
  assert.equal(masker.push(Buffer.from('progress: sho')).toString(), 'progress: ');
  assert.equal(masker.push(Buffer.from('rt-one xx')).toString(), '*** ');
  assert.equal(masker.end().toString(), 'xx');
});

test('masks multi-byte utf-8 secrets split inside a character', () => {
  assert.equal(maskInPieces(['pässwörd'], 'x pässwörd y', [3]), 'x *** y');
});

test('any split of the output masks exactly as one whole read does', () => {
  // A fixed-seed generator: the same cases every run, many overlapping secrets over a tiny alphabet.
  let seed = 42;
  const next = (n: number): number => {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    return seed % n;
  };
  const word = (length: number): string => Array.from({ length }, () => 'ab'[next(2)]).join('');
  for (let round = 0; round < 500; round++) {
    const secrets = Array.from({ length: 1 + next(3) }, () => word(1 + next(5)));
    const input = word(next(40));
    const whole = maskInPieces(secrets, input, [input.length || 1]);
    const sizes = Array.from({ length: 4 }, () => 1 + next(6));
    assert.equal(maskInPieces(secrets, input, sizes), whole, `${JSON.stringify(secrets)} ${input} ${sizes.join(',')}`);
  }
});
