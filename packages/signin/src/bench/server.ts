// The server process the benchmark talks to: the same entry point as `conveyor signin serve`.
import { startSigninServer } from '../main.js';

const server = await startSigninServer();
console.log(`Listening on ${server.url}`);
process.once('SIGTERM', () => {
  void server.close().then(() => process.exit(0));
});
