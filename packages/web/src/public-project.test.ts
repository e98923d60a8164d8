// A public project as a visitor without an account sees it: its jobs, their graphs, logs and artifacts
// by link, read-only (no Run, Settings, Cancel or Re-run), as the pipeline lets anonymous readers see
// public jobs and tasks.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import type { Browser } from 'playwright-core';
import { ADMIN, browserUnavailable, findAccessibilityProblems, launchBrowser, newContext, screenshot, signIn, startProduct, type Product } from './testing/index.js';
import { createProject, startJob, taskNamed, waitForJob, type JobSummary, type TestProject } from './testing/projects.js';

const skip = browserUnavailable();

const PIPELINE = `tasks:
  build:
    script:
      - echo building the open source project
      - mkdir -p dist
      - echo "the build" > dist/app.txt
    artifacts: ["dist/*"]
  test:
    needs: [build]
    script: ["echo all tests pass"]
`;

describe('a public project, signed out', { skip: skip ?? false }, () => {
  let product: Product;
  let browser: Browser;
  let project: TestProject;
  let job: JobSummary;

  before(async () => {
    [product, browser] = await Promise.all([startProduct(), launchBrowser()]);
    const admin = await newContext(browser);
    await signIn(await admin.newPage(), product.url, ADMIN.username, ADMIN.password);
    project = await createProject(product, admin.request, 'open-source', PIPELINE);
    await product.cli(['pipeline', 'admin', 'project', 'update', 'open-source', '--visibility', 'public']);
    const started = await startJob(product, admin.request, 'open-source');
    job = await waitForJob(product, admin.request, 'open-source', String(started.number), (read) => read.state !== 'running');
    assert.equal(job.state, 'success');
    await admin.close();
  });
  after(async () => {
    await browser?.close();
    await product?.stop();
    project?.remove();
  });

  it('shows its jobs, a job and a task with its log and artifact, without any control that changes them', async () => {
    const context = await newContext(browser);
    const page = await context.newPage();
    await page.goto(`${product.url}/projects/open-source`);
    await page.getByRole('link', { name: 'Job 1', exact: true }).waitFor();
    assert.equal(await page.getByRole('button', { name: 'Run pipeline' }).count(), 0);
    assert.equal(await page.getByRole('link', { name: 'Settings' }).count(), 0);
    assert.deepEqual(await findAccessibilityProblems(page), []);
    await screenshot(page, 'public-project-signed-out');

    await page.getByRole('link', { name: 'Job 1', exact: true }).click();
    await page.locator('[data-ready="true"]').waitFor();
    await page.locator('[data-group="test"]').getByText('needs: build').waitFor();
    for (const name of ['Cancel', 'Re-run', 'Re-run failed tasks']) assert.equal(await page.getByRole('button', { name, exact: true }).count(), 0, name);
    assert.deepEqual(await findAccessibilityProblems(page), []);

    const build = taskNamed(job, 'build');
    await page.locator(`a.task-link[href$="/tasks/${build.id}"]`).click();
    await page.getByText('building the open source project', { exact: true }).waitFor();
    const link = page.getByRole('link', { name: 'Download dist/app.txt' });
    const [download] = await Promise.all([page.waitForEvent('download'), link.click()]);
    const bytes = readFileSync(await download.path());
    assert.equal(bytes.toString(), 'the build\n');
    assert.equal(await page.locator('code.sha').getAttribute('data-sha256'), createHash('sha256').update(bytes).digest('hex'));
    assert.deepEqual(await findAccessibilityProblems(page), []);
    await screenshot(page, 'public-task-signed-out');

    // Changing anything still needs a session: the API says so, whatever the page shows.
    const start = await page.request.post(`${product.url}/api/v1/projects/open-source/jobs/start`, { data: { ref: 'main' }, headers: { origin: product.url } });
    assert.equal(start.status(), 401);
    await context.close();
  });
});
