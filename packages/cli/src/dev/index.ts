import { widenHeapGrowth } from '@conveyor/pipeline';
import { readLongRunningConfig, waitForStopSignal } from '../long-running.js';
import { startCombinedServer } from '../serve/server.js';
import type { CommandGroup, CommandIO } from '../usage.js';
import { readDevConfig } from './config.js';
import { ADMIN_REALM, ADMIN_ROLE, ADMIN_USERNAME, DEMO_PROJECT, ensureAdmin, ensureDemo, ensureWorker, type AdminResult, type DemoResult } from './setup.js';
import { startLocalWorker, WORKER_CONCURRENCY, type LocalWorker } from './worker-process.js';

export const DEV_HELP = `Usage: conveyor dev

Everything on this machine, from a fresh clone to a running pipeline: \`conveyor serve\` (pipeline and
sign-in services and the web interface on one port, SQLite files under CONVEYOR_DATA_PATH, default
./data; open the printed URL in a browser) with a local shell worker (\`conveyor worker\`, concurrency
${WORKER_CONCURRENCY}) as a child process, until SIGTERM or SIGINT stops both.

On first start it creates:
  - the administrator '${ADMIN_USERNAME}' (role ${ADMIN_ROLE} in realm ${ADMIN_REALM}), with the password in
    CONVEYOR_ADMIN_PASSWORD, or a generated one printed once;
  - the worker's token (a file readable only by you) and work directory, under <data>/dev;
  - a private project '${DEMO_PROJECT}' owned by the administrator, on a git repository at <data>/dev/demo-repo
    whose .pipeline.yml has a matrix, needs, an artifact and a secret the log masks, and its first job.
Later starts reuse all of it: no new administrator, password or demo job.

Variables: those of \`conveyor serve\` (see \`conveyor serve --help\`), and
  CONVEYOR_ADMIN_PASSWORD   the administrator's password on first start (ignored afterwards)
`;

function describeAdmin(result: AdminResult): string {
  if (result.generatedPassword !== null) {
    return `Password: ${result.generatedPassword}  (generated; shown only this once: keep it)\n`;
  }
  if (result.created) return 'Password: the value of CONVEYOR_ADMIN_PASSWORD\n';
  return 'Password: the one set on first start (not shown again)\n';
}

function describeDemo(url: string, demo: DemoResult): string {
  const jobs = `${url}/api/v1/projects/${DEMO_PROJECT}/jobs`;
  if (demo.job !== null) {
    return `Demo project '${DEMO_PROJECT}': job #${demo.job.number} started: ${url}/projects/${DEMO_PROJECT}/jobs/${demo.job.number} (API: ${jobs}/${demo.job.id})\n`;
  }
  return (
    `Demo project '${DEMO_PROJECT}' exists (no new job on a later start): ${url}/projects/${DEMO_PROJECT} (Run pipeline starts one), or\n` +
    `  curl -b cookies.txt -H 'origin: ${url}' -H 'content-type: application/json' -d '{"ref":"main"}' ${jobs}/start\n`
  );
}

function describeSignIn(url: string): string {
  return (
    `Open ${url}/ in a browser and sign in as ${ADMIN_USERNAME}.\n` +
    'From a terminal (the API takes the session cookie; replace PASSWORD):\n' +
    `  curl -c cookies.txt -H 'content-type: application/json' -d '{"identifier":"${ADMIN_USERNAME}","password":"PASSWORD"}' ${url}/api/v1/login/password\n` +
    `  curl -b cookies.txt ${url}/api/v1/projects/${DEMO_PROJECT}/jobs\n`
  );
}

/** `conveyor dev`: the combined server, first-start setup, and a local worker, until SIGTERM or SIGINT. */
export const runDev: CommandGroup = async (argv, io) => {
  const read = readLongRunningConfig(argv, io, { name: 'dev', variables: 'CONVEYOR_*', help: DEV_HELP, read: () => readDevConfig(io.env) });
  if ('exit' in read) return read.exit;
  const { config } = read;
  widenHeapGrowth();
  const server = await startCombinedServer(config.serve);
  let worker: LocalWorker | null = null;
  try {
    const adminResult = await ensureAdmin(server.signin, config.adminPassword);
    const credentials = await ensureWorker(server.pipeline, config.devPath);
    const demo = await ensureDemo(server.pipeline, config.devPath, adminResult.userId);
    worker = startLocalWorker({ serverUrl: server.url, credentials, env: config.workerEnv, stdout: io.stdout, stderr: io.stderr }, (code, signal) => {
      io.stderr(`warning: the worker exited (${signal ?? `code ${String(code)}`}); tasks wait until \`conveyor dev\` is started again\n`);
    });
    io.stdout(
      `Administrator: ${ADMIN_USERNAME} (${ADMIN_ROLE} in realm ${ADMIN_REALM})\n` +
        describeAdmin(adminResult) +
        describeSignIn(server.url) +
        describeDemo(server.url, demo) +
        `Worker '${credentials.name}' started (pid ${worker.pid}, shell executor, concurrency ${WORKER_CONCURRENCY}, work directory ${credentials.workDir})\n`,
    );
  } catch (error) {
    await worker?.stop();
    await server.stop();
    throw error;
  }
  // Last, so that it means "ready": the administrator, the demo and the worker are in place.
  io.stdout(`Listening on ${server.url} (data ${config.serve.dataPath})\n`);
  return stopOnSignal(io, worker, server.stop);
};

async function stopOnSignal(io: CommandIO, worker: LocalWorker, stopServer: () => Promise<void>): Promise<number> {
  const signal = await waitForStopSignal();
  io.stdout(`${signal} received: stopping the worker, then the server\n`);
  await worker.stop();
  await stopServer();
  io.stdout('Stopped\n');
  return 0;
}
