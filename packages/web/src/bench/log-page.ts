// The browser's side of a huge log: how long the task page takes to show the tail of a log, how many log
// bytes it fetched to open it and scroll through it (top, middle, bottom), and the page's JavaScript heap
// after that and a search of the whole log. Used by the browser test (with assertions) and `npm run bench:web`.
import type { Browser, Page } from 'playwright-core';
import { ADMIN, type Product } from '../testing/product.js';
import { newContext, signIn } from '../testing/browser.js';

export interface LogPageFigures {
  /** From the navigation's start to the first frame showing the log's last lines. */
  tailMs: number;
  /** Log bytes the page fetched to open and scroll top, middle, bottom (the search reads the whole log by design, and is not counted). */
  bytesFetched: number;
  /** JSHeapUsedSize after a garbage collection, once everything above and a search were done. */
  jsHeapMb: number;
  /** The log's size. */
  logBytes: number;
}

/** Sums the bodies of the page's log range reads (not the live event stream, whose body never ends). */
export function trackLogBytes(page: Page, task: string): { total(): Promise<number> } {
  const reads: Promise<number>[] = [];
  page.on('response', (response) => {
    const url = response.url();
    if (!url.includes(`/tasks/${task}/log`) || (response.headers()['content-type'] ?? '').includes('event-stream')) return;
    reads.push(response.body().then((body) => body.length, () => 0));
  });
  return {
    async total() {
      const sizes = await Promise.all(reads);
      return sizes.reduce((sum, size) => sum + size, 0);
    },
  };
}

/** Opens the task page and returns the milliseconds from the navigation's start to the first frame with log lines in it. */
export async function openAtTail(page: Page, url: string): Promise<number> {
  await page.goto(url, { waitUntil: 'commit' });
  const handle = await page.waitForFunction(() => (document.querySelector('.log-row .log-text:not(.muted)') !== null ? performance.now() : null), undefined, { polling: 'raf', timeout: 30_000 });
  return (await handle.jsonValue()) as number;
}

/** Scrolls the log as a person would (keyboard on the focused log, or dragging to the middle) and waits until the rows in view are loaded. */
export async function scrollLog(page: Page, where: 'top' | 'middle' | 'bottom'): Promise<void> {
  const scroller = page.locator('.log-scroller');
  await scroller.focus();
  if (where === 'top') await page.keyboard.press('Home');
  else if (where === 'bottom') await page.keyboard.press('End');
  else await scroller.evaluate((element) => element.scrollTo({ top: (element.scrollHeight - element.clientHeight) / 2 }));
  // Keyboard scrolling may be animated: first the position, then the rows drawn there.
  await page.waitForFunction(
    (target) => {
      const element = document.querySelector('.log-scroller')!;
      const max = element.scrollHeight - element.clientHeight;
      return target === 'top' ? element.scrollTop === 0 : target === 'bottom' ? element.scrollTop >= max - 1 : Math.abs(element.scrollTop - max / 2) < 2;
    },
    where,
    { polling: 'raf', timeout: 30_000 },
  );
  await page.waitForFunction(
    () => {
      const view = document.querySelector('.log-scroller')!.getBoundingClientRect();
      const rows = [...document.querySelectorAll('.log-row')].filter((row) => {
        const box = row.getBoundingClientRect();
        return box.top >= view.top - 1 && box.bottom <= view.bottom + 1;
      });
      return rows.length > 0 && rows.every((row) => !row.querySelector('.log-text.muted'));
    },
    undefined,
    { polling: 'raf', timeout: 30_000 },
  );
}

/** Searches the whole log and waits for the count. */
export async function searchLog(page: Page, query: string): Promise<string> {
  await page.getByLabel('Search the log').fill(query);
  const status = page.locator('.log-search-count').filter({ hasText: /^[\d,]+\+? of |^No matches/ });
  await status.waitFor({ timeout: 120_000 });
  return status.innerText();
}

/** The page's used JavaScript heap in MiB, after a garbage collection. */
export async function measureHeapMb(page: Page): Promise<number> {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('HeapProfiler.collectGarbage');
  await cdp.send('Performance.enable');
  const { metrics } = await cdp.send('Performance.getMetrics');
  await cdp.detach();
  const used = metrics.find((metric) => metric.name === 'JSHeapUsedSize')?.value ?? 0;
  return used / (1024 * 1024);
}

export async function measureLogPage(browser: Browser, product: Product, project: string, job: string, task: string): Promise<LogPageFigures> {
  const context = await newContext(browser);
  try {
    const page = await context.newPage();
    await signIn(page, product.url, ADMIN.username, ADMIN.password);
    const read = await context.request.get(`${product.url}/api/v1/projects/${project}/tasks/${task}`);
    const logBytes = ((await read.json()) as { task: { log_size: number } }).task.log_size;
    const bytes = trackLogBytes(page, task);
    const tailMs = await openAtTail(page, `${product.url}/projects/${project}/jobs/${job}/tasks/${task}`);
    await scrollLog(page, 'top');
    await scrollLog(page, 'middle');
    await scrollLog(page, 'bottom');
    const bytesFetched = await bytes.total();
    await searchLog(page, 'line');
    const jsHeapMb = await measureHeapMb(page);
    return { tailMs, bytesFetched, jsHeapMb, logBytes };
  } finally {
    await context.close();
  }
}
