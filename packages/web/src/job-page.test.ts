// The job page in a real browser against `conveyor dev` and its real shell worker: the demo's graph
// with its matrix boxed, a run watched live to its end, re-running the failed tasks of a failing job,
// cancelling a running one, and a 256-task job whose every task is a link.
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { LARGE_JOB_TASKS, largePipeline, measureJobPage, UNOFFERED_ARCH } from './bench/job-page.js';
import { createProject, startJob } from './testing/projects.js';
import { ADMIN, browserUnavailable, findAccessibilityProblems, launchBrowser, newContext, screenshot, signIn, startProduct, type Product } from './testing/index.js';

const skip = browserUnavailable();

/** The job's state as the page's heading shows it. */
function heading(page: Page, state: string) {
  return page.getByRole('heading', { level: 1 }).filter({ hasText: state });
}

function taskLink(page: Page, name: string | RegExp) {
  return page.getByRole('link', { name });
}

describe('the job page', { skip: skip ?? false }, () => {
  let product: Product;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  const cleanups: (() => void)[] = [];
  const scratch = mkdtempSync(join(tmpdir(), 'conveyor-web-job-page-'));

  before(async () => {
    // A one-second heartbeat: a cancelled running task learns it within a second.
    [product, browser] = await Promise.all([startProduct({ env: { PIPELINE_HEARTBEAT_INTERVAL: '1' } }), launchBrowser()]);
    context = await newContext(browser);
    page = await context.newPage();
    await signIn(page, product.url, ADMIN.username, ADMIN.password);
  });
  after(async () => {
    await browser?.close();
    await product?.stop();
    for (const cleanup of cleanups) cleanup();
    rmSync(scratch, { recursive: true, force: true });
  });

  it("draws the demo's graph (test's shards boxed under their name) and watches a run from the Run button to its end, live", async () => {
    await page.goto(`${product.url}/projects/demo`);
    await page.getByRole('link', { name: 'Job 1', exact: true }).click();
    await page.waitForURL(`${product.url}/projects/demo/jobs/1`);
    const testBox = page.locator('[data-group="test"]');
    await testBox.getByText('2 variants').waitFor();
    assert.equal(await testBox.getByRole('link').count(), 2);
    await testBox.getByRole('link', { name: /shard=1/ }).waitFor();
    await testBox.getByRole('link', { name: /shard=2/ }).waitFor();
    await page.locator('[data-group="build"]').getByRole('link', { name: /build/ }).waitFor();
    await page.locator('[data-group="deploy"]').getByText('needs: test').waitFor();
    assert.deepEqual(await page.locator('.stage-title').allInnerTexts(), ['STAGE 1', 'STAGE 2', 'STAGE 3']);
    assert.ok((await page.locator('.edges path').count()) === 2, 'an edge build → test and one test → deploy');
    await heading(page, 'Succeeded').waitFor({ timeout: 30_000 });
    assert.deepEqual(await findAccessibilityProblems(page), []);
    await screenshot(page, 'job-demo');

    // The demo run again from its project page's Run button: the page opens job #2 and follows it to its
    // end without a reload (the demo takes a fraction of a second, so its running state may come and go
    // before the page's first read; the gated run below is seen running for sure).
    await page.getByRole('link', { name: 'demo', exact: true }).click();
    await page.getByRole('button', { name: 'Run pipeline' }).click();
    await page.waitForURL(`${product.url}/projects/demo/jobs/2`);
    await page.evaluate(() => ((window as unknown as { stayed: boolean }).stayed = true));
    await heading(page, 'Succeeded').waitFor({ timeout: 30_000 });
    await page.locator('[data-group="deploy"] .task-success').waitFor();
    assert.equal(await page.evaluate(() => (window as unknown as { stayed?: boolean }).stayed), true, 'no reload happened');

    // A fresh run from the project page's Run button: the page opens the new job and follows it. Its
    // first task waits for a file this test writes once the page shows it running, so the page is seen
    // running and then finished however fast the machine is.
    const gate = join(scratch, 'go');
    const gated = await createProject(
      product,
      page.request,
      'gated',
      `tasks:\n  hold:\n    script: ["while [ ! -f ${gate} ]; do sleep 0.05; done"]\n  after:\n    needs: [hold]\n    script: ["echo done"]\n`,
    );
    cleanups.push(gated.remove);
    await page.goto(`${product.url}/projects/gated`);
    await page.getByRole('button', { name: 'Run pipeline' }).click();
    await page.waitForURL(`${product.url}/projects/gated/jobs/1`);
    await page.evaluate(() => ((window as unknown as { stayed: boolean }).stayed = true));
    await heading(page, 'Running').waitFor();
    await page.getByRole('status').filter({ hasText: 'Live' }).waitFor();
    await page.locator('[data-group="hold"] .task-running').waitFor({ timeout: 30_000 });
    await page.locator('[data-group="after"] .task-blocked').waitFor();
    writeFileSync(gate, '');
    await heading(page, 'Succeeded').waitFor({ timeout: 30_000 });
    await page.locator('[data-group="after"] .task-success').waitFor();
    assert.equal(await page.evaluate(() => (window as unknown as { stayed?: boolean }).stayed), true, 'no reload happened');
    assert.equal(await page.getByRole('button', { name: 'Cancel' }).isDisabled(), true);
    await page.getByText('Cancel: the job has finished.').waitFor();
    assert.deepEqual(await findAccessibilityProblems(page), []);
    await screenshot(page, 'job-done');
  });

  it('re-runs the failed task and its skipped dependent in the same job, which then succeeds on attempt 2', async () => {
    const marker = join(scratch, 'flaky-may-pass');
    const project = await createProject(
      product,
      page.request,
      'flaky',
      `tasks:
  flaky:
    script: ["echo checking for ${marker}", "test -f ${marker}"]
  after:
    needs: [flaky]
    script: ["echo the flaky task passed"]
`,
    );
    cleanups.push(project.remove);
    const { number } = await startJob(product, page.request, 'flaky');
    await page.goto(`${product.url}/projects/flaky/jobs/${number}`);
    await heading(page, 'Failed').waitFor({ timeout: 30_000 });
    await page.locator('[data-group="after"] .task-skipped').waitFor();
    assert.deepEqual(await findAccessibilityProblems(page), []);
    await screenshot(page, 'job-failed');

    writeFileSync(marker, 'yes\n');
    await page.getByRole('button', { name: 'Re-run failed tasks' }).click();
    await page.getByRole('status').filter({ hasText: '2 tasks run again in this job.' }).waitFor();
    await heading(page, 'Succeeded').waitFor({ timeout: 30_000 });
    assert.equal(new URL(page.url()).pathname, `/projects/flaky/jobs/${number}`, 'the same job');
    await taskLink(page, /flaky.*attempt 2/).waitFor();
    // The dependent never ran before: this is its first attempt.
    await page.locator('[data-group="after"] .task-success').waitFor();
    assert.equal(await page.getByRole('button', { name: 'Re-run failed tasks' }).isDisabled(), true);
    await page.getByText('Re-run failed tasks: no task failed or was canceled.').waitFor();
    assert.ok(existsSync(marker));
  });

  it('cancels a running job with the Cancel button', async () => {
    const project = await createProject(product, page.request, 'sleepy', 'tasks:\n  nap:\n    script: ["sleep 60"]\n');
    cleanups.push(project.remove);
    const { number } = await startJob(product, page.request, 'sleepy');
    await page.goto(`${product.url}/projects/sleepy/jobs/${number}`);
    await page.locator('[data-group="nap"] .task-running').waitFor({ timeout: 30_000 });
    assert.deepEqual(await findAccessibilityProblems(page), []);
    await screenshot(page, 'job-running');
    await page.getByRole('button', { name: 'Cancel' }).click();
    await heading(page, 'Canceled').waitFor({ timeout: 30_000 });
    await page.locator('[data-group="nap"] .task-canceled').waitFor();
    assert.equal(await page.getByRole('button', { name: 'Re-run failed tasks' }).isEnabled(), true, 'a canceled task can run again');
  });

  it('shows every task of a 256-task job as a link, and why the waiting ones are not picked up', async () => {
    const project = await createProject(product, page.request, 'large', largePipeline());
    cleanups.push(project.remove);
    const { number } = await startJob(product, page.request, 'large');
    const tti = await measureJobPage(page, `${product.url}/projects/large/jobs/${number}`);
    assert.ok(tti > 0);
    assert.equal(await page.locator('a.task-link').count(), LARGE_JOB_TASKS);
    assert.equal(await page.locator('.stage').count(), 4);
    // The first stage's 4 matrix boxes wait (each says why once for its 16 variants); the later stages are blocked.
    const why = page.getByText(`Waiting variants not picked up: no worker offers arch ${UNOFFERED_ARCH}`);
    assert.equal(await why.count(), 4);
    assert.equal(await page.locator('.task-waiting').count(), 64);
    assert.equal(await why.first().isVisible(), true);
    assert.equal(await page.getByRole('button', { name: 'Re-run' , exact: true }).isEnabled(), true);
    assert.deepEqual(await findAccessibilityProblems(page), []);
    await screenshot(page, 'job-large');
  });

  it('shows the 404 page for a job that does not exist', async () => {
    await page.goto(`${product.url}/projects/demo/jobs/999`);
    await page.getByRole('heading', { name: 'Page not found' }).waitFor();
  });
});
