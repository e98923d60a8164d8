// The task log page in a real browser against `conveyor dev` and its real shell worker: a log that
// appears while the task runs, with colours; search with next/previous; links to a line; an artifact
// downloaded and checked; an earlier attempt; a task waiting for a worker. axe-core on every state.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { ADMIN, browserUnavailable, findAccessibilityProblems, launchBrowser, newContext, screenshot, signIn, startProduct, type Product } from './testing/index.js';
import { isInLogView, logRow, taskPageUrl, visibleLogLines } from './testing/log-page.js';
import { createProject, startJob, taskNamed, waitForJob, type JobSummary } from './testing/projects.js';

const skip = browserUnavailable();

/** Prints slowly (so the page sees it running), in colour, a progress line, an artifact and lines to search. */
function livePipeline(marker: string, release: string): string {
  return `tasks:
  slow:
    script:
      - 'for i in 1 2 3; do echo "line $i"; done'
      - 'while [ ! -e ${release} ]; do sleep 0.05; done'
      - 'for i in $(seq 4 40); do echo "line $i"; sleep 0.02; done'
      - 'printf ''\\033[31mred alert\\033[0m and \\033[1;32mbold green\\033[0m\\n'''
      - 'printf ''progress 10%%\\rprogress 50%%\\rprogress 100%%\\n'''
      - mkdir -p out
      - 'printf ''report of the slow task\\n'' > out/report.txt'
      - 'for i in $(seq 1 30); do echo "needle number $i"; done'
    artifacts: ["out/*"]
  flaky:
    retries: 1
    script:
      - 'if [ -e ${marker} ]; then echo "second attempt succeeds"; else touch ${marker}; echo "first attempt fails"; exit 3; fi'
`;
}

const WAITING_PIPELINE = `tasks:
  gpu:
    requires: [gpu]
    script: [echo never]
`;

describe('the task log page', { skip: skip ?? false }, () => {
  let product: Product;
  let browser: Browser;
  let context: BrowserContext;
  let job: JobSummary;
  let release: string;

  before(async () => {
    [product, browser] = await Promise.all([startProduct(), launchBrowser()]);
    context = await newContext(browser);
    const page = await context.newPage();
    await signIn(page, product.url, ADMIN.username, ADMIN.password);
    await page.close();
    const scratch = mkdtempSync(join(tmpdir(), 'conveyor-flaky-'));
    const marker = join(scratch, 'second-attempt');
    // The slow task holds after its first three lines until the first test has seen them on the page
    // (however slow this machine is at opening it), then writes the rest while the page follows.
    release = join(scratch, 'release');
    await createProject(product, context.request, 'live-log', livePipeline(marker, release));
    job = await startJob(product, context.request, 'live-log');
  });
  after(async () => {
    await context?.close();
    await browser?.close();
    await product?.stop();
  });

  async function openTask(name: string, extra = ''): Promise<Page> {
    const page = await context.newPage();
    await page.goto(taskPageUrl(product.url, 'live-log', String(job.number), taskNamed(job, name).id, extra));
    return page;
  }

  it('shows the log while the task runs, in colour, and ends following at the end', async () => {
    const page = await openTask('slow');
    await page.getByRole('heading', { name: 'slow' }).waitFor();
    await logRow(page, 'line 3').waitFor();
    // The lines are there while the task still runs: the API and the page both say so.
    const during = await waitForJob(product, context.request, 'live-log', String(job.number), () => true);
    assert.equal(taskNamed(during, 'slow').state, 'running', 'line 3 was on the page before the task finished');
    await page.getByRole('status').filter({ hasText: 'Following the log' }).waitFor();
    assert.deepEqual(await findAccessibilityProblems(page), []);
    await screenshot(page, 'task-log-live');
    await page.evaluate(() => ((window as unknown as { stayed: boolean }).stayed = true));
    writeFileSync(release, '');
    // The rest arrives while the page is open: followed live, never reloaded.
    await logRow(page, 'needle number 30').waitFor({ timeout: 30_000 });
    assert.equal(await page.evaluate(() => (window as unknown as { stayed?: boolean }).stayed), true, 'no reload happened');

    await page.getByRole('status').filter({ hasText: 'The log is complete.' }).waitFor({ timeout: 30_000 });
    await page.locator('.task-header .state', { hasText: 'Succeeded' }).waitFor();
    // Followed to the end: the last line is in view, and the first is not in the page at all.
    const last = logRow(page, 'needle number 30');
    assert.ok(await isInLogView(page, last), 'the view ends at the last line');
    assert.equal(await logRow(page, 'line 1').count(), 0, 'lines far above the view are not in the page');
    assert.ok((await page.locator('.log-row').count()) < 70, 'only the rows in view and a few around them are drawn');
    // Scrolling up (as a person does, with the wheel) stops following and brings the coloured line in.
    await page.locator('.log-scroller').hover();
    await page.mouse.wheel(0, -400);
    await page.getByRole('button', { name: 'Jump to end' }).waitFor();
    const red = logRow(page, 'red alert and bold green');
    await red.waitFor();
    assert.equal(await red.locator('span.ansi-fg-1', { hasText: 'red alert' }).count(), 1, 'red is a red span');
    assert.equal(await red.locator('span.ansi-fg-2.ansi-bold', { hasText: 'bold green' }).count(), 1, 'bold green is bold and green');
    assert.equal(await red.locator('.log-text').innerText(), 'red alert and bold green', 'the escape sequences are gone');
    assert.equal(await logRow(page, 'progress 100%').count(), 1, 'the last carriage-return segment wins');
    assert.ok(await isInLogView(page, red), 'the coloured line is in view');
    assert.deepEqual(await findAccessibilityProblems(page), []);
    await screenshot(page, 'task-log-finished');
    await page.close();
  });

  it('searches the log with next and previous, and shows the current match', async () => {
    await waitForJob(product, context.request, 'live-log', String(job.number), (read) => taskNamed(read, 'slow').state === 'success');
    const page = await openTask('slow');
    const search = page.getByLabel('Search the log');
    await search.fill('NEEDLE');
    const count = page.getByRole('status').filter({ hasText: / of 31$/ });
    // The echoed command holds it once, its output 30 times; the first match is shown.
    await count.filter({ hasText: '1 of 31' }).waitFor();
    const current = page.locator('mark.current');
    assert.match(await current.locator('xpath=ancestor::div[contains(@class,"log-row")]').innerText(), /for i in/);
    await search.press('Enter');
    await count.filter({ hasText: '2 of 31' }).waitFor();
    assert.equal(await page.locator('.log-row', { has: page.locator('mark.current') }).locator('.log-text').innerText(), 'needle number 1');
    await page.getByRole('button', { name: 'Next match' }).click();
    await count.filter({ hasText: '3 of 31' }).waitFor();
    await search.press('Shift+Enter');
    await search.press('Shift+Enter');
    await search.press('Shift+Enter');
    await count.filter({ hasText: '31 of 31' }).waitFor();
    const row = page.locator('.log-row', { has: page.locator('mark.current') });
    assert.equal(await row.locator('.log-text').innerText(), 'needle number 30');
    assert.ok(await isInLogView(page, current), 'the current match is scrolled into view');
    assert.equal(await page.locator('mark').filter({ hasText: /^needle$/ }).count() >= 10, true, 'every match in view is marked');
    assert.deepEqual(await findAccessibilityProblems(page), []);
    await screenshot(page, 'task-log-search');

    await search.fill('no such text anywhere');
    await page.getByRole('status').filter({ hasText: 'No matches' }).waitFor();
    await page.close();
  });

  it('links to a line: a click sets the address, and opening it shows the line highlighted', async () => {
    await waitForJob(product, context.request, 'live-log', String(job.number), (read) => taskNamed(read, 'slow').state === 'success');
    const page = await openTask('slow');
    await logRow(page, 'needle number 30').waitFor();
    await page.getByRole('button', { name: 'Jump to start' }).click();
    await page.getByRole('link', { name: 'Line 12', exact: true }).click();
    assert.equal(new URL(page.url()).hash, '#L12');
    const text = await page.locator('.log-row.selected .log-text').innerText();
    // Line 12: after the three echoed commands ("$ for ...", "$ while ...", "$ for ...") and lines 1 to 8.
    assert.equal(text, 'line 9', 'line 12 of the log is the output line 9');
    await page.reload();
    const selected = page.locator('.log-row.selected');
    await selected.waitFor();
    assert.equal(await selected.locator('.log-text').innerText(), 'line 9');
    assert.equal(await selected.locator('.ln').innerText(), '12');
    assert.ok(await isInLogView(page, selected), 'the linked line is in view');
    assert.ok(!(await visibleLogLines(page)).some((line) => line.text === 'needle number 30'), 'the page opened at the line, not at the tail');
    assert.deepEqual(await findAccessibilityProblems(page), []);
    await screenshot(page, 'task-log-line-link');
    await page.close();
  });

  it('downloads an artifact whose sha256 is the one shown and the one the API gives', async () => {
    const done = await waitForJob(product, context.request, 'live-log', String(job.number), (read) => taskNamed(read, 'slow').state === 'success');
    const page = await openTask('slow');
    const link = page.getByRole('link', { name: 'Download out/report.txt' });
    await link.waitFor();
    const shown = await page.locator('code.sha').getAttribute('data-sha256');
    const [download] = await Promise.all([page.waitForEvent('download'), link.click()]);
    const path = await download.path();
    const bytes = readFileSync(path);
    assert.equal(bytes.toString(), 'report of the slow task\n');
    const sha = createHash('sha256').update(bytes).digest('hex');
    const api = (await (await context.request.get(`${product.url}/api/v1/projects/live-log/tasks/${taskNamed(done, 'slow').id}`)).json()) as { artifacts: { path: string; sha256: string }[] };
    assert.equal(shown, sha);
    assert.equal(api.artifacts.find((artifact) => artifact.path === 'out/report.txt')?.sha256, sha);
    await page.getByRole('button', { name: 'Copy the SHA-256 of out/report.txt' }).waitFor();
    assert.equal(await page.getByRole('link', { name: 'Download raw log' }).getAttribute('href'), `/api/v1/projects/live-log/jobs/${job.number}/tasks/${taskNamed(done, 'slow').id}/log`);
    await page.close();
  });

  it('shows an earlier attempt of a retried task, its own log and artifacts', async () => {
    await waitForJob(product, context.request, 'live-log', String(job.number), (read) => read.state !== 'running');
    const page = await openTask('flaky');
    await logRow(page, 'second attempt succeeds').waitFor();
    await page.locator('.task-facts', { hasText: '2 of 2' }).waitFor();
    await page.getByLabel('Attempt', { exact: true }).selectOption('1');
    await page.waitForURL(/\?attempt=1$/);
    await logRow(page, 'first attempt fails').waitFor();
    assert.equal(await logRow(page, 'second attempt succeeds').count(), 0);
    await page.getByText('You are reading attempt 1 of 2').waitFor();
    await page.getByText('No artifacts.').waitFor();
    assert.deepEqual(await findAccessibilityProblems(page), []);
    await screenshot(page, 'task-log-earlier-attempt');
    await page.getByRole('link', { name: 'Show the latest attempt' }).click();
    await logRow(page, 'second attempt succeeds').waitFor();
    await page.close();
  });

  it('says why a waiting task waits, and that it has no log yet', async () => {
    await createProject(product, context.request, 'waiting', WAITING_PIPELINE);
    const waiting = await startJob(product, context.request, 'waiting');
    await waitForJob(product, context.request, 'waiting', String(waiting.number), (read) => read.tasks[0]?.state === 'waiting');
    const page = await context.newPage();
    await page.goto(taskPageUrl(product.url, 'waiting', String(waiting.number), taskNamed(waiting, 'gpu').id));
    await page.getByRole('heading', { name: 'Waiting for a worker' }).waitFor();
    await page.getByText('No connected worker can take it: no worker offers the feature gpu').waitFor();
    await page.getByText('No log yet').waitFor();
    await page.getByRole('link', { name: `Job #${waiting.number}` }).waitFor();
    assert.deepEqual(await findAccessibilityProblems(page), []);
    await screenshot(page, 'task-log-waiting');
    await page.close();
  });
});
