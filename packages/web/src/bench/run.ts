// `npm run bench:web`: the web interface in Debian's Chromium against a real `conveyor dev`.
//   1. bytes on the wire for the first pages (sign-in; projects, signed in), target < 200 kB gzip
//   2. time to interactive of the job page of a 256-task job (and of the demo job, the baseline)
//   3. the browser's memory on a 64 MiB log (and on a short log, the baseline)
import { loadavg } from 'node:os';
import { browserUnavailable, launchBrowser } from '../testing/browser.js';
import { startProduct } from '../testing/product.js';
import { weighFirstPages } from './bundle.js';

const kB = (bytes: number): string => `${(bytes / 1000).toFixed(1)} kB`;

async function main(): Promise<void> {
  const unavailable = browserUnavailable();
  if (unavailable !== null) {
    console.error(`bench:web needs Chromium: ${unavailable}`);
    process.exit(2);
  }
  console.log(`load average at start: ${loadavg().map((value) => value.toFixed(2)).join(' ')}`);
  const [product, browser] = await Promise.all([startProduct(), launchBrowser()]);
  try {
    console.log('\n1. First pages, as sent (the build precompresses; the browser takes brotli):');
    for (const weight of await weighFirstPages(browser, product)) {
      const verdict = weight.encodedBytes < 200_000 ? 'under' : 'OVER';
      console.log(`   ${weight.page.padEnd(9)} ${kB(weight.encodedBytes).padStart(9)} on the wire (${kB(weight.decodedBytes)} decoded, ${weight.files} files): ${verdict} the 200 kB target`);
    }
  } finally {
    await browser.close();
    await product.stop();
  }
}

await main();
