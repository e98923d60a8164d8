import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { readReply, type Reply, type ReplyParser } from './cat-file-protocol.js';

const OID = 'a'.repeat(40);

/** Feeds `bytes` in pieces of `size`, as a pipe may deliver them, and collects the replies. */
function feed(parsers: ReplyParser[], bytes: Buffer, size: number): Reply[] {
  const replies: Reply[] = [];
  let buffer = Buffer.alloc(0);
  for (let offset = 0; offset < bytes.length; offset += size) {
    buffer = Buffer.concat([buffer, bytes.subarray(offset, offset + size)]);
    for (;;) {
      const parser = parsers[0];
      if (parser === undefined || buffer.length === 0) break;
      const step = readReply(parser, buffer);
      buffer = buffer.subarray(step.consumed);
      if (step.reply === undefined) break;
      replies.push(step.reply);
      parsers.shift();
    }
  }
  assert.equal(buffer.length, 0, 'every byte was used');
  return replies;
}

describe('the cat-file reply parser', () => {
  const content = Buffer.from(`x\n${OID} blob 3\nmissing\n\0\xff`, 'latin1');
  const stream = Buffer.concat([
    Buffer.from(`${OID} commit 180\n`),
    Buffer.from(`${OID} blob ${content.length}\n`),
    content,
    Buffer.from('\n'),
    Buffer.from(`${OID}:no such path missing\n`),
    Buffer.from(`${OID} blob ${content.length}\n`),
    content,
    Buffer.from('\n'),
    Buffer.from('abc ambiguous\n'),
  ]);
  const parsers = (): ReplyParser[] => [
    { kind: 'info' },
    { kind: 'contents', limit: 1000 },
    { kind: 'contents', limit: 1000 },
    { kind: 'contents', limit: 5 },
    { kind: 'info' },
  ];
  const expected: Reply[] = [
    { kind: 'info', info: { oid: OID, type: 'commit', size: 180 } },
    { kind: 'contents', content: { oid: OID, type: 'blob', size: content.length, content } },
    { kind: 'missing' },
    { kind: 'contents', content: { oid: OID, type: 'blob', size: content.length, content: null } },
    { kind: 'missing' },
  ];

  for (const size of [1, 2, 7, 64, stream.length]) {
    it(`reads exact byte counts delivered ${size} bytes at a time`, () => {
      assert.deepEqual(feed(parsers(), stream, size), expected);
    });
  }

  it('refuses output that does not fit the protocol', () => {
    assert.throws(() => readReply({ kind: 'info' }, Buffer.from('fatal: something\n')), /unexpected line: fatal: something/);
    assert.throws(() => readReply({ kind: 'contents', limit: 10 }, Buffer.from(`${OID} blob 2\nabX`)), /no newline after the 2 bytes/);
    assert.throws(() => readReply({ kind: 'info' }, Buffer.alloc(70_000, 0x41)), /longer than/);
  });
});
