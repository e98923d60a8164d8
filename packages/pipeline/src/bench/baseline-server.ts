// The throughput baseline for artifact uploads: a plain node:http server that streams each request body
// to a file with stream.pipeline and nothing else. Started as a child process by run.ts:
//   node baseline-server.js <directory>
// It prints `Listening on http://127.0.0.1:<port>` once ready and stops on SIGTERM.
import { createWriteStream } from 'node:fs';
import { createServer } from 'node:http';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';

const directory = process.argv[2];
if (directory === undefined) {
  console.error('usage: node baseline-server.js <directory>');
  process.exit(2);
}

let uploads = 0;
const server = createServer((request, response) => {
  uploads += 1;
  const path = join(directory, `baseline-${uploads}.bin`);
  const file = createWriteStream(path, { flags: 'wx' });
  pipeline(request, file).then(
    () => {
      response.writeHead(201, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ path, size: file.bytesWritten }));
    },
    (error: unknown) => {
      response.writeHead(400, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ error: String(error) }));
    },
  );
});

server.listen(0, '127.0.0.1', () => {
  const address = server.address();
  const port = typeof address === 'object' && address !== null ? address.port : 0;
  console.log(`Listening on http://127.0.0.1:${port}`);
});

process.once('SIGTERM', () => {
  server.closeAllConnections();
  server.close(() => process.exit(0));
});
