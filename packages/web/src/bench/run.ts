// `npm run bench:web`: the web interface in Debian's Chromium against a real `conveyor dev`.
//   1. bytes on the wire for the first pages (sign-in; projects, signed in), target < 200 kB gzip
//   2. time to interactive of the job page of a 256-task job (and of the demo job, the baseline)
//   3. the browser's memory on a 64 MiB log (and on a short log, the baseline)
import { loadavg } from 'node:os';
import type { Browser } from 'playwright-core';
import { browserUnavailable, launchBrowser, newContext, signIn } from '../testing/browser.js';
import { ADMIN, startProduct, type Product } from '../testing/product.js';
import { BIG_LOG_ENV, createBigLogTask } from '../testing/big-log.js';
import { readJob, taskNamed } from '../testing/projects.js';
import { weighFirstPages } from './bundle.js';
import { benchJobPage, measureJobPage } from './job-page.js';
import { measureLogPage, type LogPageFigures } from './log-page.js';

const ROUNDS = 5;

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
}

/** The demo's 4-task job page, the same measure as the 256-task one: the baseline of the ratio. */
async function benchDemoJobPage(product: Product, browser: Browser): Promise<number> {
  const context = await newContext(browser);
  try {
    const page = await context.newPage();
    await signIn(page, product.url, ADMIN.username, ADMIN.password);
    const times: number[] = [];
    for (let round = 0; round < ROUNDS; round += 1) times.push(await measureJobPage(page, `${product.url}/projects/demo/jobs/1`));
    return Math.round(median(times));
  } finally {
    await context.close();
  }
}

const kB = (bytes: number): string => `${(bytes / 1000).toFixed(1)} kB`;

const MiB = (bytes: number): string => `${(bytes / 1024 / 1024).toFixed(2)} MiB`;

/** The log page on the 64 MiB log and, as the baseline, on the demo's build task (a few lines). */
async function benchLogPages(product: Product, browser: Browser): Promise<{ big: LogPageFigures; small: LogPageFigures }> {
  const context = await newContext(browser);
  try {
    await signIn(await context.newPage(), product.url, ADMIN.username, ADMIN.password);
    const bigTask = await createBigLogTask(product, context.request);
    const demo = await readJob(product, context.request, 'demo', '1');
    const small = await measureLogPage(browser, product, 'demo', '1', taskNamed(demo, 'build').id);
    const big = await measureLogPage(browser, product, bigTask.project, bigTask.job, bigTask.task);
    return { big, small };
  } finally {
    await context.close();
  }
}

async function main(): Promise<void> {
  const unavailable = browserUnavailable();
  if (unavailable !== null) {
    console.error(`bench:web needs Chromium: ${unavailable}`);
    process.exit(2);
  }
  console.log(`load average at start: ${loadavg().map((value) => value.toFixed(2)).join(' ')}`);
  // The 64 MiB log and the lines around it need a limit above the default 64 MiB.
  const [product, browser] = await Promise.all([startProduct({ env: BIG_LOG_ENV }), launchBrowser()]);
  try {
    console.log('\n1. First pages, as sent (the build precompresses; the browser takes brotli):');
    for (const weight of await weighFirstPages(browser, product)) {
      const verdict = weight.encodedBytes < 200_000 ? 'under' : 'OVER';
      console.log(`   ${weight.page.padEnd(9)} ${kB(weight.encodedBytes).padStart(9)} on the wire (${kB(weight.decodedBytes)} decoded, ${weight.files} files): ${verdict} the 200 kB target`);
    }

    console.log(`\n2. Job page, time to interactive (navigation start to the graph drawn and the buttons decided; median of ${ROUNDS}):`);
    const baseline = await benchDemoJobPage(product, browser);
    const large = await benchJobPage(product, browser, ROUNDS);
    console.log(`   demo job (4 tasks)     ${String(baseline).padStart(5)} ms`);
    console.log(`   large job (${large.tasks} tasks) ${String(large.tti_ms).padStart(5)} ms  (${(large.tti_ms / baseline).toFixed(2)}x the demo's)`);

    console.log('\n3. Task log page: the tail on screen, bytes fetched to open it and scroll top, middle, bottom, and the JS heap after a search of the whole log:');
    const { big, small } = await benchLogPages(product, browser);
    for (const [label, figures] of [['demo build log', small], ['64 MiB log', big]] as const) {
      console.log(
        `   ${label.padEnd(15)} ${MiB(figures.logBytes).padStart(10)} log: tail in ${String(Math.round(figures.tailMs)).padStart(4)} ms, ${MiB(figures.bytesFetched)} fetched, heap ${figures.jsHeapMb.toFixed(1)} MiB`,
      );
    }
    console.log(`   heap on the 64 MiB log is ${(big.jsHeapMb / small.jsHeapMb).toFixed(2)}x the heap on the demo's log; ${((100 * big.bytesFetched) / big.logBytes).toFixed(2)}% of the log was fetched`);
  } finally {
    await browser.close();
    await product.stop();
  }
}

await main();
