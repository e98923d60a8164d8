// The interface without a mouse, and in the dark colour scheme: from the sign-in form to a line of a task's log with Tab, typing and
// Enter only, as a person using the keyboard (or a switch device) would. Each control on the way must be
// reachable in the tab order, show where the focus is, and act on Enter.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, Locator, Page } from 'playwright-core';
import { ADMIN, browserUnavailable, findAccessibilityProblems, launchBrowser, newContext, signIn, startProduct, type Product } from './testing/index.js';
import { readJob, taskNamed, waitForJob } from './testing/projects.js';

const skip = browserUnavailable();

/** Presses Tab until `target` has the focus; fails when it is not in the tab order within `limit` presses. */
async function tabTo(page: Page, target: Locator, limit = 60): Promise<void> {
  const handle = await target.elementHandle();
  assert.ok(handle !== null, 'the control is on the page');
  for (let presses = 0; presses < limit; presses += 1) {
    await page.keyboard.press('Tab');
    if (await handle.evaluate((element) => element === document.activeElement)) {
      // The focus must be visible: a focus ring (outline) or the browser's own.
      const outline = await handle.evaluate((element) => getComputedStyle(element).outlineStyle);
      assert.notEqual(outline, 'none', 'the focused control shows a focus ring');
      return;
    }
  }
  assert.fail(`${String(target)} was not reached with ${limit} presses of Tab`);
}

describe('the interface by keyboard alone', { skip: skip ?? false }, () => {
  let product: Product;
  let browser: Browser;

  before(async () => {
    [product, browser] = await Promise.all([startProduct(), launchBrowser()]);
  });
  after(async () => {
    await browser?.close();
    await product?.stop();
  });

  it('signs in, opens the demo project, its job, a task and a line of its log, with Tab and Enter only', async () => {
    const context = await newContext(browser);
    const page = await context.newPage();
    await page.goto(`${product.url}/sign-in`);
    // The identifier field has the focus when the page opens; Enter continues, and the password field takes it.
    await page.getByLabel('Username or email').waitFor();
    await page.keyboard.type(ADMIN.username);
    await page.keyboard.press('Enter');
    await page.getByLabel('Password', { exact: true }).waitFor();
    assert.equal(await page.evaluate(() => document.activeElement?.id), 'password');
    await page.keyboard.type(ADMIN.password);
    await page.keyboard.press('Enter');
    await page.waitForURL(`${product.url}/`);
    await page.getByRole('heading', { name: 'Projects' }).waitFor();
    assert.equal(await page.evaluate(() => document.activeElement?.id), 'main', 'after a navigation the focus starts at the content');

    // On a page load, the first Tab reaches the skip link, whose Enter moves the focus past the header.
    await page.reload();
    await page.getByRole('heading', { name: 'Projects' }).waitFor();
    await page.keyboard.press('Tab');
    assert.equal(await page.evaluate(() => document.activeElement?.textContent), 'Skip to content');
    await page.keyboard.press('Enter');
    assert.equal(await page.evaluate(() => document.activeElement?.id), 'main');

    await tabTo(page, page.getByRole('link', { name: 'demo', exact: true }));
    await page.keyboard.press('Enter');
    await page.waitForURL(`${product.url}/projects/demo`);

    await waitForJob(product, context.request, 'demo', '1', (job) => job.state !== 'running');
    const jobLink = page.getByRole('link', { name: 'Job 1', exact: true });
    await jobLink.waitFor();
    await tabTo(page, jobLink);
    await page.keyboard.press('Enter');
    await page.waitForURL(`${product.url}/projects/demo/jobs/1`);

    const build = taskNamed(await readJob(product, context.request, 'demo', '1'), 'build');
    const taskLink = page.locator(`a.task-link[href$="/tasks/${build.id}"]`);
    await taskLink.waitFor();
    await tabTo(page, taskLink);
    await page.keyboard.press('Enter');
    await page.waitForURL(new RegExp(`/tasks/${build.id}$`));

    const search = page.getByLabel('Search the log');
    await search.waitFor();
    await tabTo(page, search);
    await page.keyboard.type('shard');
    await page.keyboard.press('Enter');
    await page.getByText(/^\d+ of \d+$/).waitFor();

    const lineLink = page.getByRole('link', { name: 'Line 1', exact: true });
    await tabTo(page, lineLink, 120);
    await page.keyboard.press('Enter');
    await page.waitForURL(/#L1$/);
    await context.close();
  });

  it('passes the accessibility check on every page in the dark colour scheme too (contrast differs)', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, colorScheme: 'dark' });
    const page = await context.newPage();
    await page.goto(`${product.url}/sign-in`);
    await page.getByLabel('Username or email').waitFor();
    const problems: Record<string, string[]> = { '/sign-in': await findAccessibilityProblems(page) };
    await signIn(page, product.url, ADMIN.username, ADMIN.password);
    const job = await waitForJob(product, context.request, 'demo', '1', (read) => read.state !== 'running');
    const build = taskNamed(job, 'build');
    const pages: [string, Locator][] = [
      ['/', page.getByRole('link', { name: 'demo', exact: true })],
      ['/projects/demo', page.getByRole('link', { name: 'Job 1', exact: true })],
      ['/projects/demo/jobs/1', page.locator('[data-ready="true"]')],
      [`/projects/demo/jobs/1/tasks/${build.id}`, page.getByText('The log is complete.')],
      ['/projects/demo/settings', page.getByRole('heading', { name: 'Settings of demo' })],
      ['/workers', page.getByRole('row', { name: /dev-worker/ })],
      ['/no/such/page', page.getByRole('heading', { name: 'Page not found' })],
    ];
    for (const [path, shown] of pages) {
      await page.goto(`${product.url}${path}`);
      await shown.waitFor();
      problems[path] = await findAccessibilityProblems(page);
    }
    assert.deepEqual(
      Object.entries(problems).filter(([, found]) => found.length > 0),
      [],
    );
    await context.close();
  });
});
