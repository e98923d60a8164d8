// What a browser downloads to show a page, as the server sends it (precompressed): every document,
// script and stylesheet of this origin, by the Resource Timing API's encoded (on-the-wire body) sizes.
import type { Browser } from 'playwright-core';
import { newContext, signIn } from '../testing/browser.js';
import { ADMIN, type Product } from '../testing/product.js';

export interface PageWeight {
  page: string;
  /** Bytes on the wire (compressed) of the document, scripts and stylesheets. */
  encodedBytes: number;
  /** The same files decoded. */
  decodedBytes: number;
  files: number;
}

interface ResourceSize {
  name: string;
  encoded: number;
  decoded: number;
}

async function weighPage(browser: Browser, product: Product, path: string, signedIn: boolean): Promise<PageWeight> {
  const context = await newContext(browser);
  if (signedIn) await signIn(await context.newPage(), product.url, ADMIN.username, ADMIN.password);
  const fresh = await context.newPage();
  // Nothing from the cache: what a first visit downloads.
  const client = await context.newCDPSession(fresh);
  await client.send('Network.enable');
  await client.send('Network.setCacheDisabled', { cacheDisabled: true });
  await fresh.goto(`${product.url}${path}`, { waitUntil: 'networkidle' });
  const sizes = await fresh.evaluate((origin) => {
    const entries = [...performance.getEntriesByType('navigation'), ...performance.getEntriesByType('resource')] as PerformanceResourceTiming[];
    return entries
      .filter((entry) => entry.name.startsWith(origin) && !entry.name.includes('/api/'))
      .map((entry) => ({ name: entry.name, encoded: entry.encodedBodySize, decoded: entry.decodedBodySize }));
  }, product.url);
  await context.close();
  const total = (key: keyof Omit<ResourceSize, 'name'>) => sizes.reduce((sum: number, size: ResourceSize) => sum + size[key], 0);
  return { page: path, encodedBytes: total('encoded'), decodedBytes: total('decoded'), files: sizes.length };
}

/** The first page a newcomer sees (sign-in) and the first signed-in page (projects). */
export async function weighFirstPages(browser: Browser, product: Product): Promise<PageWeight[]> {
  return [await weighPage(browser, product, '/sign-in', false), await weighPage(browser, product, '/', true)];
}
