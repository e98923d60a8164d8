// Test support: the pipeline server in a process of its own, configured by PIPELINE_* variables, so a
// test can kill it (SIGKILL) the way a crash would. Prints "Listening on <url>" once it takes requests.
import { readPipelineConfig } from '../config.js';
import { startPipelineServer } from '../main.js';

void startPipelineServer(readPipelineConfig()).then((server) => {
  process.stdout.write(`Listening on ${server.url}\n`);
});
