// A 64 MiB log written by a real task: the page shows its tail in under a second having fetched a few
// hundred KiB of it, shows the right lines at the top and in the middle without loading it whole, and
// searches all of it range by range.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, BrowserContext } from 'playwright-core';
import { measureHeapMb, measureLogPage, openAtTail, scrollLog, searchLog, trackLogBytes } from './bench/log-page.js';
import { BIG_LOG_BYTES, BIG_LOG_ENV, BIG_LOG_FIRST, BIG_LOG_LAST, BIG_LOG_LINE, createBigLogTask, type BigLogTask } from './testing/big-log.js';
import { ADMIN, browserUnavailable, findAccessibilityProblems, launchBrowser, newContext, screenshot, signIn, startProduct, type Product } from './testing/index.js';
import { taskPageUrl, visibleLogLines } from './testing/log-page.js';

const skip = browserUnavailable();
const MIB = 1024 * 1024;

describe('a 64 MiB log', { skip: skip ?? false }, () => {
  let product: Product;
  let browser: Browser;
  let context: BrowserContext;
  let big: BigLogTask;

  before(async () => {
    [product, browser] = await Promise.all([startProduct({ env: BIG_LOG_ENV }), launchBrowser()]);
    context = await newContext(browser);
    const page = await context.newPage();
    await signIn(page, product.url, ADMIN.username, ADMIN.password);
    await page.close();
    big = await createBigLogTask(product, context.request);
  });
  after(async () => {
    await context?.close();
    await browser?.close();
    await product?.stop();
  });

  it('opens at the tail in under a second and scrolls to the top and the middle without loading it whole', async () => {
    assert.ok(big.logBytes > BIG_LOG_BYTES, `the log is over 64 MiB (${big.logBytes} bytes)`);
    const page = await context.newPage();
    const bytes = trackLogBytes(page, big.task);
    const tailMs = await openAtTail(page, taskPageUrl(product.url, big.project, big.job, big.task));
    const tail = await visibleLogLines(page);
    assert.equal(tail.at(-1)?.text, BIG_LOG_LAST, 'the last line is at the bottom');
    // `head -c` cut the last repeated line short: the echoed `$ echo` command follows its start.
    assert.deepEqual(tail.slice(-3).map((line) => line.text), ['', `$ echo '${BIG_LOG_LAST}'`, BIG_LOG_LAST]);
    assert.match(tail.at(-4)?.text ?? '', /^some.*\$ echo$/);
    assert.ok(tail.slice(0, -4).every((line) => line.text === BIG_LOG_LINE), 'every line above them is whole');
    const tailBytes = await bytes.total();
    console.log(`64 MiB log: tail painted after ${Math.round(tailMs)} ms, ${tailBytes} log bytes fetched`);
    assert.ok(tailMs < 1000, `the tail is on screen in ${Math.round(tailMs)} ms`);
    assert.ok(tailBytes <= 512 * 1024 + 1, `opening fetched ${tailBytes} bytes of the log`);
    assert.ok((await page.locator('.log-row').count()) < 80, 'only the rows in view (and a few more) are in the page');
    assert.deepEqual(await findAccessibilityProblems(page), []);
    await screenshot(page, 'task-log-64mib-tail');

    await scrollLog(page, 'top');
    const top = await visibleLogLines(page);
    assert.deepEqual(top.slice(0, 3), [
      { number: '1', text: `$ echo '${BIG_LOG_FIRST}'` },
      { number: '2', text: BIG_LOG_FIRST },
      { number: '3', text: `$ yes '${BIG_LOG_LINE}' | head -c ${BIG_LOG_BYTES}` },
    ]);
    assert.ok(top.slice(3).every((line, index) => line.text === BIG_LOG_LINE && line.number === String(index + 4)), 'the lines below are numbered in order');
    await screenshot(page, 'task-log-64mib-top');

    await scrollLog(page, 'middle');
    const middle = await visibleLogLines(page);
    assert.ok(middle.length > 10 && middle.every((line) => line.text === BIG_LOG_LINE), 'the middle shows whole lines of the log');
    assert.ok(middle.every((line) => line.number.startsWith('≈')), 'numbers in the uncounted middle are marked as estimates');
    const estimate = Number(middle[0]!.number.slice(1));
    const expected = BIG_LOG_BYTES / 2 / (BIG_LOG_LINE.length + 1);
    assert.ok(Math.abs(estimate - expected) / expected < 0.05, `the middle's estimated number ${estimate} is near ${Math.round(expected)}`);
    assert.deepEqual(await findAccessibilityProblems(page), []);
    await screenshot(page, 'task-log-64mib-middle');
    const fetched = await bytes.total();
    console.log(`64 MiB log: ${fetched} log bytes fetched after tail, top and middle`);
    assert.ok(fetched < 2 * MIB, `tail, top and middle fetched ${fetched} bytes`);

    // A search reads every range once, keeps only the offsets, and counts every line on the way.
    assert.match(await searchLog(page, BIG_LOG_LAST), /^1 of 2$/);
    await page.getByRole('button', { name: 'Next match' }).click();
    await page.locator('.log-search-count', { hasText: '2 of 2' }).waitFor();
    const found = await visibleLogLines(page);
    const last = found.find((line) => line.text === BIG_LOG_LAST);
    // Three lines before the repeated ones, the whole repeated ones, then the cut one and three more.
    const lines = 3 + Math.floor(BIG_LOG_BYTES / (BIG_LOG_LINE.length + 1)) + 4;
    assert.equal(last?.number, String(lines), 'after the search every line has its exact number');
    const heapMb = await measureHeapMb(page);
    console.log(`64 MiB log: JS heap ${heapMb.toFixed(1)} MiB after a search of all of it`);
    assert.ok(heapMb < 64, `the page holds ${heapMb.toFixed(1)} MiB, not the log`);
    assert.deepEqual(await findAccessibilityProblems(page), []);
    await screenshot(page, 'task-log-64mib-search');
    await page.close();
  });

  it('gives the benchmark its figures: tail time, bytes fetched, heap and the log size', async () => {
    const figures = await measureLogPage(browser, product, big.project, big.job, big.task);
    console.log(`64 MiB log, as the benchmark measures it: ${JSON.stringify(figures)}`);
    assert.equal(figures.logBytes, big.logBytes);
    assert.ok(figures.tailMs > 0 && figures.tailMs < 1000, `tail in ${figures.tailMs} ms`);
    assert.ok(figures.bytesFetched > 0 && figures.bytesFetched < 2 * MIB, `fetched ${figures.bytesFetched} bytes`);
    assert.ok(figures.jsHeapMb > 0 && figures.jsHeapMb < 64, `heap ${figures.jsHeapMb} MiB`);
  });
});
