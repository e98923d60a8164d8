// The project page in a real browser against `conveyor dev`: the demo's jobs, a job started elsewhere
// appearing without a reload, branch and state filters kept in the address, an empty project's help,
// and the 404 page for a project that is not there.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { createProject } from './testing/projects.js';
import { ADMIN, browserUnavailable, findAccessibilityProblems, launchBrowser, newContext, screenshot, signIn, startProduct, type Product } from './testing/index.js';

const skip = browserUnavailable();

function row(page: Page, number: number) {
  return page.locator(`tr[data-job="${number}"]`);
}

describe('the project page', { skip: skip ?? false }, () => {
  let product: Product;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  const cleanups: (() => void)[] = [];

  /** The management API through the signed-in browser's cookie, as the page itself would call it. */
  async function post(path: string, data: object): Promise<Record<string, unknown>> {
    const response = await page.request.post(`${product.url}${path}`, { data, headers: { origin: product.url } });
    assert.ok(response.ok(), `${path}: ${response.status()} ${await response.text()}`);
    return (await response.json()) as Record<string, unknown>;
  }

  before(async () => {
    [product, browser] = await Promise.all([startProduct(), launchBrowser()]);
    context = await newContext(browser);
    page = await context.newPage();
    await signIn(page, product.url, ADMIN.username, ADMIN.password);
  });
  after(async () => {
    await browser?.close();
    await product?.stop();
    for (const cleanup of cleanups) cleanup();
  });

  it("lists the demo's job with its state, ref, commit and actor; a job started elsewhere appears without a reload", async () => {
    await page.goto(`${product.url}/projects/demo`);
    await page.getByRole('heading', { name: 'demo', level: 1 }).waitFor();
    await row(page, 1).getByText('Succeeded').waitFor({ timeout: 30_000 });
    const first = await row(page, 1).innerText();
    assert.match(first, /#1/);
    assert.match(first, /main/);
    assert.match(first, /[0-9a-f]{8}\s+Demo pipeline: build, a test matrix, deploy with a masked secret/);
    assert.match(first, /admin/);
    assert.ok((await row(page, 1).locator('time').getAttribute('title')) !== '', 'the full time is in the title');
    await page.getByText('Private', { exact: true }).waitFor();
    await page.getByRole('link', { name: 'Settings' }).waitFor();
    await page.getByRole('status').filter({ hasText: 'Live' }).waitFor();

    await page.evaluate(() => ((window as unknown as { stayed: boolean }).stayed = true));
    await post('/api/v1/projects/demo/jobs/start', { ref: 'main' });
    await row(page, 2).waitFor();
    await row(page, 2).getByText('Succeeded').waitFor({ timeout: 30_000 });
    assert.deepEqual(await page.locator('tbody tr').evaluateAll((rows) => rows.map((element) => element.getAttribute('data-job'))), ['2', '1']);
    assert.equal(await page.evaluate(() => (window as unknown as { stayed?: boolean }).stayed), true, 'no reload happened');
    assert.deepEqual(await findAccessibilityProblems(page), []);
    await screenshot(page, 'project-with-jobs');
  });

  it('filters by branch and by state, and keeps the filters in the address for sharing', async () => {
    const listed = (await (await page.request.get(`${product.url}/api/v1/projects/demo/jobs?limit=1`)).json()) as { jobs: { head_sha: string }[] };
    const sha = listed.jobs[0]?.head_sha ?? '';
    // A job recorded on another branch (the commit's own ref is whatever the starter names), then cancelled.
    const created = await post('/api/v1/projects/demo/jobs/start', { sha, ref: 'refs/heads/feature' });
    await post(`/api/v1/projects/demo/jobs/${String(created['job_id'])}/stop`, {});
    await page.goto(`${product.url}/projects/demo`);
    await row(page, 3).waitFor();

    await page.getByLabel('Branch', { exact: true }).pressSequentially('feature');
    await page.getByRole('button', { name: 'Filter' }).click();
    await page.waitForURL(`${product.url}/projects/demo?branch=feature`);
    await page.locator('tbody tr').first().waitFor();
    await page.waitForFunction(() => document.querySelectorAll('tbody tr').length === 1);
    assert.equal(await row(page, 3).count(), 1);

    await page.getByLabel('Branch', { exact: true }).fill('');
    await page.getByRole('button', { name: 'Filter' }).click();
    await page.getByLabel('State').selectOption({ label: 'Canceled' });
    await page.waitForURL(`${product.url}/projects/demo?state=canceled`);
    await page.waitForFunction(() => document.querySelectorAll('tbody tr').length === 1);
    assert.match(await row(page, 3).innerText(), /Canceled/);

    // The address alone gives the same view, in a new tab.
    const shared = await context.newPage();
    await shared.goto(`${product.url}/projects/demo?branch=main&state=success`);
    await shared.locator('tbody tr').first().waitFor();
    assert.deepEqual(await shared.locator('tbody tr').evaluateAll((rows) => rows.map((element) => element.getAttribute('data-job'))), ['2', '1']);
    assert.equal(await shared.getByLabel('Branch', { exact: true }).inputValue(), 'main');
    assert.equal(await shared.getByLabel('State').inputValue(), 'success');
    await shared.goto(`${product.url}/projects/demo?branch=nope`);
    await shared.getByRole('heading', { name: 'No jobs match these filters' }).waitFor();
    await shared.close();
  });

  it('explains how to start the first job of a new project, and runs it with the Run button', async () => {
    const project = await createProject(product, page.request, 'fresh', 'tasks:\n  hello:\n    script: ["echo hello"]\n');
    cleanups.push(project.remove);
    await page.goto(`${product.url}/projects/fresh`);
    await page.getByRole('heading', { name: 'No jobs yet' }).waitFor();
    await page.getByText('conveyor pipeline hook install').waitFor();
    await page.getByRole('link', { name: "The project's settings" }).waitFor();
    assert.equal(await page.getByLabel('Branch, tag or commit').inputValue(), 'main');
    assert.deepEqual(await findAccessibilityProblems(page), []);
    await screenshot(page, 'project-empty');
    await page.getByRole('button', { name: 'Run pipeline' }).click();
    await page.waitForURL(`${product.url}/projects/fresh/jobs/1`);
  });

  it('says what went wrong when a run cannot start', async () => {
    await page.goto(`${product.url}/projects/fresh`);
    await page.getByLabel('Branch, tag or commit').fill('no-such-branch');
    await page.getByRole('button', { name: 'Run pipeline' }).click();
    await page.getByRole('alert').filter({ hasText: "no branch or tag 'no-such-branch'" }).waitFor();
    assert.equal(new URL(page.url()).pathname, '/projects/fresh');
  });

  it('shows the 404 page for a project that does not exist or cannot be seen', async () => {
    await page.goto(`${product.url}/projects/nope`);
    await page.getByRole('heading', { name: 'Page not found' }).waitFor();
    const stranger = await newContext(browser);
    const outsider = await stranger.newPage();
    await outsider.goto(`${product.url}/projects/demo`);
    await outsider.getByRole('heading', { name: 'Page not found' }).waitFor();
    assert.deepEqual(await findAccessibilityProblems(outsider), []);
    await stranger.close();
  });
});
