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

test('holds back only a possible secret prefix, never more', () => {
  const masker = new Masker(['topsecret']);
  assert.equal(masker.push(Buffer.from('hello world top')).toString(), 'hello w');
  assert.equal(masker.push(Buffer.from('secret!')).toString(), 'orld ***');
  assert.equal(masker.end().toString(), '!');
});

test('masks multi-byte utf-8 secrets split inside a character', () => {
  assert.equal(maskInPieces(['pässwörd'], 'x pässwörd y', [3]), 'x *** y');
});
