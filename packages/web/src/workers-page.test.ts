// The workers page in a real browser against `conveyor dev`: a person with no workers sees what a
// worker is; an administrator creates one, runs the very command the page shows (a real worker
// process), watches its last contact arrive, and revokes it.
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { ADMIN, REPOSITORY_ROOT, browserUnavailable, findAccessibilityProblems, launchBrowser, newContext, screenshot, signIn, startProduct, type Product } from './testing/index.js';

const skip = browserUnavailable();
const BOB = { username: 'bob', password: 'bob has a long password' };

async function expectNoAccessibilityProblems(page: Page, name: string): Promise<void> {
  assert.deepEqual(await findAccessibilityProblems(page), [], name);
  await screenshot(page, name);
}

/** The `NAME=value ... npx conveyor worker` line the page shows, taken apart as a shell would (single quotes only). */
function parseCommand(command: string): { env: Record<string, string>; argv: string[] } {
  const words = [...command.matchAll(/(?:[^\s']+|'[^']*')+/g)].map((match) => match[0].replace(/'([^']*)'/g, '$1'));
  const env: Record<string, string> = {};
  while (words[0] !== undefined && /^[A-Z_]+=/.test(words[0])) {
    const word = words.shift() ?? '';
    env[word.slice(0, word.indexOf('='))] = word.slice(word.indexOf('=') + 1);
  }
  return { env, argv: words };
}

describe('the workers page', { skip: skip ?? false }, () => {
  let product: Product;
  let browser: Browser;
  let worker: ChildProcess | undefined;
  let workDir: string | undefined;
  let workerOutput = '';

  before(async () => {
    [product, browser] = await Promise.all([startProduct(), launchBrowser()]);
    await product.cli(['signin', 'admin', 'user', 'create', '--username', BOB.username, '--password-stdin'], `${BOB.password}\n`);
    await product.cli(['signin', 'admin', 'member', 'add', '--realm', 'system', '--user', BOB.username]);
  });
  after(async () => {
    // The worker was started in its own process group (sh, npx, node): end that group, which this test made.
    // The shell may have gone while npx and node live on, so the group is ended whatever sh's state.
    if (worker?.pid !== undefined) {
      try {
        process.kill(-worker.pid, 'SIGKILL');
      } catch {
        // ESRCH: the whole group has already ended.
      }
    }
    await browser?.close();
    await product?.stop();
    if (workDir !== undefined) rmSync(workDir, { recursive: true, force: true });
  });

  it('tells a person without workers what a worker is and how to add one', async () => {
    const context = await newContext(browser);
    const page = await context.newPage();
    await signIn(page, product.url, BOB.username, BOB.password);
    await page.getByRole('link', { name: 'Workers' }).click();
    const empty = page.getByRole('region', { name: 'No workers yet' });
    await empty.getByText('A worker is a program on a machine of yours').waitFor();
    assert.equal(await page.getByRole('table').count(), 0, "bob sees none of the administrator's workers");
    await expectNoAccessibilityProblems(page, 'workers-empty');
    await context.close();
  });

  it('creates a worker, shows its token and the command once, and that command runs a worker the page sees', async () => {
    const context = await newContext(browser);
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: product.url });
    const page = await context.newPage();
    await signIn(page, product.url, ADMIN.username, ADMIN.password);
    await page.getByRole('link', { name: 'Workers' }).click();
    await page.getByText('Every worker: the machines that run tasks.').waitFor();
    // The list itself, not the projects table the page replaced nor the heading before the list's read.
    await page.getByRole('row', { name: /dev-worker/ }).waitFor();
    const before = await page.getByRole('row').count();

    await page.getByRole('button', { name: 'New worker' }).click();
    await page.getByLabel('Worker name').pressSequentially('web test');
    await page.getByRole('button', { name: 'Create worker' }).click();
    await page.getByRole('alert').getByText("worker name 'web test' must match").waitFor();
    await page.getByLabel('Worker name').fill('');
    await page.getByLabel('Worker name').pressSequentially('web-test-worker');
    await page.getByRole('button', { name: 'Create worker' }).click();
    const box = page.locator('.secret-once');
    await box.getByText('shown only once').waitFor();
    const token = (await box.locator('.secret-value code').innerText()).trim();
    assert.match(token, /^cvw_\S+$/);
    const command = (await box.locator('pre').innerText()).trim();
    await box.getByRole('button', { name: 'Copy the command' }).click();
    assert.equal(await page.evaluate(() => navigator.clipboard.readText()), command);
    const parsed = parseCommand(command);
    assert.deepEqual(parsed.argv, ['npx', 'conveyor', 'worker']);
    assert.deepEqual(parsed.env, { CONVEYOR_WORKER_URL: product.url, CONVEYOR_WORKER_TOKEN: token, CONVEYOR_WORKER_NAME: 'web-test-worker' });
    await page.getByRole('row', { name: /web-test-worker/ }).getByText('Never').waitFor();
    await expectNoAccessibilityProblems(page, 'workers-token-shown');

    // The very line the page shows, through a shell, with nothing of this test's environment but PATH and HOME.
    workDir = mkdtempSync(join(tmpdir(), 'conveyor-web-worker-'));
    worker = spawn('sh', ['-c', command], { cwd: REPOSITORY_ROOT, env: { PATH: process.env['PATH'], HOME: process.env['HOME'], TMPDIR: workDir }, detached: true });
    worker.stdout?.on('data', (chunk: Buffer) => (workerOutput += chunk.toString()));
    worker.stderr?.on('data', (chunk: Buffer) => (workerOutput += chunk.toString()));

    const row = page.getByRole('row', { name: /web-test-worker/ });
    await row.getByText('Idle').waitFor({ timeout: 30_000 }).catch((error: unknown) => {
      throw new Error(`the worker never made contact: ${String(error)}\nworker output:\n${workerOutput}`);
    });
    assert.match(await row.locator('time').innerText(), /now|second/);
    await page.reload();
    assert.equal(await page.locator('.secret-once').count(), 0, 'the token is gone after a reload');
    assert.ok(!(await page.content()).includes(token));
    await row.getByText('Idle').waitFor();
    await expectNoAccessibilityProblems(page, 'workers-list');

    await row.getByRole('button', { name: 'Revoke' }).click();
    await page.getByText('Its token stops working at once').waitFor();
    await page.getByRole('button', { name: 'Revoke web-test-worker' }).click();
    await page.getByRole('status').filter({ hasText: 'Worker web-test-worker revoked' }).waitFor();
    assert.equal(await page.getByRole('row', { name: /web-test-worker/ }).count(), 0);
    assert.equal(await page.getByRole('row').count(), before);
    const listed = await page.evaluate(async () => (await fetch('/api/v1/workers')).text());
    assert.ok(!listed.includes('web-test-worker'), 'the API lists it no more');
    await context.close();
  });
});
