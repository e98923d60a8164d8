import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { findArtifacts, uploadArtifacts } from './artifacts.js';
import { ProtocolClient } from './client.js';

async function withTree(body: (root: string) => Promise<void>): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'conveyor-artifacts-'));
  try {
    const root = join(dir, 'work');
    await mkdir(join(root, 'dist/sub'), { recursive: true });
    await mkdir(join(root, 'reports'), { recursive: true });
    await writeFile(join(dir, 'outside.txt'), 'outside secret\n');
    await writeFile(join(root, 'dist/app.js'), 'app\n');
    await writeFile(join(root, 'dist/sub/deep.txt'), 'deep\n');
    await writeFile(join(root, 'reports/a.xml'), '<a/>\n');
    await writeFile(join(root, 'reports/b.txt'), 'b\n');
    await writeFile(join(root, 'top.txt'), 'top\n');
    await symlink('../top.txt', join(root, 'reports/inside-link.txt'));
    await symlink(join(dir, 'outside.txt'), join(root, 'reports/outside-link.txt'));
    await symlink('/', join(root, 'reports/root-dir'));
    await body(root);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

test('finds matching files, takes whole directories, and never follows a link outside', async () => {
  await withTree(async (root) => {
    const { files, notes } = await findArtifacts(root, ['dist', 'reports/**/*.txt', '../outside.txt', 'reports/root-dir/etc/passwd']);
    assert.deepEqual(
      files.map((file) => file.path),
      ['dist/app.js', 'dist/sub/deep.txt', 'reports/b.txt', 'reports/inside-link.txt'],
    );
    assert.equal(files[3]!.source, join(root, 'top.txt'));
    assert.equal(notes.length, 2, notes.join('\n'));
    assert.match(notes[0]!, /outside the workdir/);
    assert.match(notes[1]!, /outside-link\.txt skipped/);
  });
});

test('uploads each file streamed with its length and path, starting over after a dropped upload', async () => {
  await withTree(async (root) => {
    const big = Buffer.alloc(3 * 1024 * 1024);
    for (let i = 0; i < big.length; i++) big[i] = (i * 7919) % 251;
    await writeFile(join(root, 'dist/big.bin'), big);
    const stored = new Map<string, string>();
    let requests = 0;
    let dropped = false;
    const server = http.createServer(async (req, res) => {
      requests += 1;
      const hash = createHash('sha256');
      let size = 0;
      let index = 0;
      for await (const chunk of req as AsyncIterable<Buffer>) {
        // The first upload of the big file is cut after its first chunk, as a flaky network would.
        if (req.headers['x-artifact-path'] === 'dist/big.bin' && !dropped && index++ > 0) {
          dropped = true;
          return void req.socket.destroy();
        }
        hash.update(chunk);
        size += chunk.length;
      }
      if (size !== Number(req.headers['content-length'])) return void res.writeHead(400).end('{"error":"length"}');
      stored.set(String(req.headers['x-artifact-path']), hash.digest('hex'));
      res.writeHead(201, { 'content-type': 'application/json' }).end('{}');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const client = new ProtocolClient({ url: 'http://127.0.0.1:1/', token: 't' });
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/artifacts`;
      const { files } = await findArtifacts(root, ['dist/**']);
      const result = await uploadArtifacts(client, url, files, new AbortController().signal);
      assert.equal(result.failure, null);
      assert.equal(result.uploaded, 3);
      for (const path of ['dist/app.js', 'dist/big.bin', 'dist/sub/deep.txt']) {
        const expected = createHash('sha256').update(await readFile(join(root, path))).digest('hex');
        assert.equal(stored.get(path), expected, path);
      }
      assert.equal(requests, 4, 'the dropped upload was sent again');
    } finally {
      client.close();
      server.closeAllConnections();
      server.close();
    }
  });
});
