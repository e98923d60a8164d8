// The projects list, creating a project and its settings, in a real browser against `conveyor dev`:
// typed and clicked like a person, secrets shown once, and axe-core on every state photographed.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { gitSync } from '@conveyor/kit/testing';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { ADMIN, browserUnavailable, findAccessibilityProblems, launchBrowser, newContext, screenshot, signIn, startProduct, type Product } from './testing/index.js';

const skip = browserUnavailable();

/** A real repository on the server's disk (the administrator is system-admin, so a path is allowed). */
function makeRepository(): string {
  const dir = mkdtempSync(join(tmpdir(), 'conveyor-web-repo-'));
  gitSync(dir, ['init', '-q']);
  gitSync(dir, ['checkout', '-q', '-b', 'main']);
  writeFileSync(join(dir, '.pipeline.yml'), 'tasks:\n  hello:\n    script:\n      - echo hello\n');
  gitSync(dir, ['add', '.']);
  gitSync(dir, ['commit', '-q', '-m', 'first']);
  return dir;
}

async function expectNoAccessibilityProblems(page: Page, name: string): Promise<void> {
  assert.deepEqual(await findAccessibilityProblems(page), [], name);
  await screenshot(page, name);
}

describe('projects and their settings', { skip: skip ?? false }, () => {
  let product: Product;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let repository: string;
  let createdSecret = '';

  before(async () => {
    repository = makeRepository();
    [product, browser] = await Promise.all([startProduct(), launchBrowser()]);
    context = await newContext(browser);
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: product.url });
    page = await context.newPage();
    await signIn(page, product.url, ADMIN.username, ADMIN.password);
  });
  after(async () => {
    await browser?.close();
    await product?.stop();
    if (repository !== undefined) rmSync(repository, { recursive: true, force: true });
  });

  it('lists demo with its latest job, its visibility in words and a link to it', async () => {
    await page.goto(`${product.url}/`);
    const row = page.getByRole('row').filter({ has: page.getByRole('link', { name: 'demo', exact: true }) });
    await row.getByText(/^(Running|Succeeded|Failed)$/).waitFor();
    assert.match(await row.innerText(), /Private/);
    assert.match(await row.innerText(), /#1\s+main/);
    assert.equal(await row.getByRole('link', { name: 'demo', exact: true }).getAttribute('href'), '/projects/demo');
    assert.equal(await row.getByRole('link', { name: 'Settings of demo' }).getAttribute('href'), '/projects/demo/settings');
    await expectNoAccessibilityProblems(page, 'projects-list');
  });

  it('creates a project: an invalid name is refused in words, then its trigger secret is shown once', async () => {
    await page.getByRole('button', { name: 'New project' }).click();
    await page.getByLabel('Name', { exact: true }).pressSequentially('Web App');
    await page.getByLabel('Repository URL').pressSequentially(repository);
    await page.getByRole('button', { name: 'Create project' }).click();
    const refusal = page.getByRole('alert');
    await refusal.getByText('The name may hold only lower-case letters').waitFor();
    assert.equal(await page.getByLabel('Name', { exact: true }).getAttribute('aria-invalid'), 'true');
    await expectNoAccessibilityProblems(page, 'projects-create-error');
    const listed = await page.evaluate(async () => (await (await fetch('/api/v1/projects')).json()) as { projects: { name: string }[] });
    assert.deepEqual(
      listed.projects.map((project) => project.name),
      ['demo'],
      'nothing was stored',
    );

    await page.getByLabel('Name', { exact: true }).fill('');
    await page.getByLabel('Name', { exact: true }).pressSequentially('web-app');
    await page.getByRole('button', { name: 'Create project' }).click();
    const box = page.locator('.secret-once');
    await box.getByText('shown only once').waitFor();
    createdSecret = (await box.locator('code').innerText()).trim();
    assert.match(createdSecret, /^\S{20,}$/);
    await box.getByRole('button', { name: 'Copy the trigger secret' }).click();
    assert.equal(await page.evaluate(() => navigator.clipboard.readText()), createdSecret);
    await page.getByRole('row').filter({ has: page.getByRole('link', { name: 'web-app', exact: true }) }).getByText('No jobs yet').waitFor();
    await expectNoAccessibilityProblems(page, 'projects-secret-once');
    assert.equal(await box.getByRole('link', { name: 'Open web-app' }).getAttribute('href'), '/projects/web-app');

    await page.reload();
    await page.getByRole('link', { name: 'web-app', exact: true }).waitFor();
    assert.equal(await page.locator('.secret-once').count(), 0);
    assert.ok(!(await page.content()).includes(createdSecret), 'the secret is gone after a reload');
  });

  it('sets a plain and a secret variable; the secret value never reaches the page or an API answer', async () => {
    const secretValue = 'hunter2-very-secret-value';
    await page.getByRole('link', { name: 'Settings of web-app' }).click();
    await page.getByRole('heading', { name: 'Settings of web-app' }).waitFor();
    await page.getByText('No variables yet').waitFor();

    await page.getByLabel('Variable name').pressSequentially('GREETING');
    await page.getByLabel('Value').pressSequentially('hello world');
    await page.getByRole('button', { name: 'Save variable' }).click();
    await page.getByRole('status').filter({ hasText: 'Variable GREETING added.' }).waitFor();
    await page.getByRole('row', { name: /GREETING/ }).getByText('hello world').waitFor();

    await page.getByLabel('Variable name').pressSequentially('DEPLOY_TOKEN');
    await page.getByLabel(/^Secret/).check();
    await page.getByLabel('Value').pressSequentially(secretValue);
    const answer = page.waitForResponse((response) => response.url().endsWith('/variables/DEPLOY_TOKEN') && response.request().method() === 'PUT');
    await page.getByRole('button', { name: 'Save variable' }).click();
    assert.ok(!(await (await answer).text()).includes(secretValue), 'the PUT answer does not echo the secret');
    await page.getByRole('status').filter({ hasText: 'Variable DEPLOY_TOKEN added as a secret' }).waitFor();
    await page.getByRole('row', { name: /DEPLOY_TOKEN/ }).getByText('secret, hidden').waitFor();
    assert.equal(await page.getByLabel('Value').inputValue(), '', 'the form forgets the value');
    assert.ok(!(await page.content()).includes(secretValue));
    const listed = await page.evaluate(async () => (await fetch('/api/v1/projects/web-app/variables')).text());
    assert.ok(listed.includes('DEPLOY_TOKEN') && !listed.includes(secretValue));

    await page.reload();
    await page.getByRole('row', { name: /DEPLOY_TOKEN/ }).getByText('secret, hidden').waitFor();
    assert.ok(!(await page.content()).includes(secretValue));
    await expectNoAccessibilityProblems(page, 'settings');
  });

  it('deletes a variable after asking', async () => {
    await page.getByRole('row', { name: /GREETING/ }).getByRole('button', { name: 'Delete' }).click();
    await page.getByRole('button', { name: 'Delete GREETING' }).click();
    await page.getByRole('status').filter({ hasText: 'Variable GREETING deleted.' }).waitFor();
    assert.equal(await page.getByRole('row', { name: /GREETING/ }).count(), 0);
  });

  it('rotates the trigger secret after a confirmation and shows the new one once', async () => {
    await page.getByRole('button', { name: 'Rotate the trigger secret' }).click();
    await page.getByText('The current one stops working at once').waitFor();
    await page.getByRole('button', { name: 'Rotate it now' }).click();
    await page.getByRole('status').filter({ hasText: 'The trigger secret was rotated' }).waitFor();
    const box = page.locator('.secret-once');
    await box.getByText('shown only once').waitFor();
    const rotated = (await box.locator('code').innerText()).trim();
    assert.match(rotated, /^\S{20,}$/);
    assert.notEqual(rotated, createdSecret);
    await expectNoAccessibilityProblems(page, 'settings-secret-rotated');
    await page.reload();
    await page.getByRole('heading', { name: 'Trigger secret' }).waitFor();
    assert.ok(!(await page.content()).includes(rotated));
  });

  it('switches visibility and says so in words', async () => {
    await page.getByLabel(/^Public:/).check();
    await page.getByRole('button', { name: 'Save changes' }).click();
    await page.getByRole('status').filter({ hasText: 'Saved: the project is now public.' }).waitFor();
    await page.reload();
    await page.getByRole('heading', { name: 'General' }).waitFor();
    assert.equal(await page.getByLabel(/^Public:/).isChecked(), true);
    const read = await page.evaluate(async () => ((await (await fetch('/api/v1/projects/web-app')).json()) as { project: { visibility: string } }).project.visibility);
    assert.equal(read, 'public');
  });

  it('shows copyable webhook steps for a git hook, GitHub, GitLab, Gitea and Forgejo', async () => {
    const url = `${product.url}/api/v1/projects/web-app/trigger`;
    await page.getByText(url, { exact: true }).waitFor();
    for (const [tab, needle] of [
      ['Git hook', 'post-receive'],
      ['GitHub', 'Payload URL'],
      ['GitLab', 'X-Gitlab-Token'],
      ['Gitea', 'Add webhook → Gitea'],
      ['Forgejo', 'Add webhook → Forgejo'],
    ] as const) {
      await page.getByRole('tab', { name: tab }).click();
      const panel = page.getByRole('tabpanel');
      await panel.getByRole('heading', { name: tab }).waitFor();
      await panel.getByText(needle).first().waitFor();
      await panel.getByRole('button', { name: `Copy the ${tab} steps` }).click();
      const copied = await page.evaluate(() => navigator.clipboard.readText());
      assert.ok(copied.includes(needle), `${tab}: the copied steps hold ${needle}`);
      if (tab !== 'Git hook') assert.ok(copied.includes(url), `${tab}: the copied steps hold the URL`);
    }
    await page.getByRole('tab', { name: 'Git hook' }).click();
    await page.getByRole('button', { name: 'Copy the Git hook script' }).click();
    assert.match(await page.evaluate(() => navigator.clipboard.readText()), /^#!\/bin\/sh\nexec conveyor pipeline hook post-receive --url '.+' --project 'web-app'/);
    await expectNoAccessibilityProblems(page, 'settings-webhook');
  });

  it('deletes the project once its name is typed', async () => {
    const button = page.getByRole('button', { name: 'Delete this project' });
    assert.equal(await button.isDisabled(), true);
    await page.getByLabel('Type web-app to confirm').pressSequentially('web-app');
    await button.click();
    await page.getByRole('status').filter({ hasText: 'were deleted' }).waitFor();
    await page.getByRole('link', { name: 'Back to the projects' }).click();
    await page.getByRole('link', { name: 'demo', exact: true }).waitFor();
    assert.equal(await page.getByRole('link', { name: 'web-app', exact: true }).count(), 0);
  });
});
