// Who sees what of the management pages, in a real browser against `conveyor dev`: signed out, a plain
// member of the system realm, and an administrator of another realm (on its own host) see nothing of the
// private `demo` project, its settings or the system realm's workers.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { gitSync } from '@conveyor/kit/testing';
import type { Browser, Page } from 'playwright-core';
import { ADMIN, browserUnavailable, findAccessibilityProblems, launchBrowser, newContext, screenshot, signIn, startProduct, type Product } from './testing/index.js';

const skip = browserUnavailable();
const DAVE = { username: 'dave', password: 'dave is a plain member' };
const CAROL = { username: 'carol', password: 'carol runs the acme realm' };

async function expectNoAccessibilityProblems(page: Page, name: string): Promise<void> {
  assert.deepEqual(await findAccessibilityProblems(page), [], name);
  await screenshot(page, name);
}

async function expectNotFound(page: Page, url: string): Promise<void> {
  await page.goto(url);
  await page.getByRole('heading', { name: 'Page not found' }).waitFor();
  assert.equal(await page.getByRole('heading', { name: /Settings of/ }).count(), 0);
}

describe('who sees the management pages', { skip: skip ?? false }, () => {
  let product: Product;
  let browser: Browser;
  let repository: string;
  let acmeUrl: string;

  before(async () => {
    repository = mkdtempSync(join(tmpdir(), 'conveyor-web-repo-'));
    gitSync(repository, ['init', '-q']);
    writeFileSync(join(repository, 'README.md'), '# open\n');
    gitSync(repository, ['add', '.']);
    gitSync(repository, ['commit', '-q', '-m', 'first']);
    [product, browser] = await Promise.all([startProduct(), launchBrowser()]);
    acmeUrl = `http://acme.localhost:${product.port}`;
    const cli = product.cli;
    await cli(['pipeline', 'admin', 'project', 'create', '--name', 'open', '--repo', repository, '--visibility', 'public']);
    await cli(['signin', 'admin', 'user', 'create', '--username', DAVE.username, '--password-stdin'], `${DAVE.password}\n`);
    await cli(['signin', 'admin', 'member', 'add', '--realm', 'system', '--user', DAVE.username]);
    await cli(['signin', 'admin', 'realm', 'create', '--slug', 'acme', '--display-name', 'Acme', '--host', 'acme.localhost']);
    await cli(['signin', 'admin', 'user', 'create', '--username', CAROL.username, '--password-stdin'], `${CAROL.password}\n`);
    await cli(['signin', 'admin', 'member', 'add', '--realm', 'acme', '--user', CAROL.username, '--role', 'realm-admin']);
  });
  after(async () => {
    await browser?.close();
    await product?.stop();
    if (repository !== undefined) rmSync(repository, { recursive: true, force: true });
  });

  it('after signing out, the private demo is gone from the projects page and its settings ask for a sign-in', async () => {
    const context = await newContext(browser);
    const page = await context.newPage();
    await signIn(page, product.url, ADMIN.username, ADMIN.password);
    await page.goto(`${product.url}/`);
    await page.getByRole('link', { name: 'demo', exact: true }).waitFor();
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('heading', { name: 'Sign in to' }).waitFor();
    await page.goto(`${product.url}/`);
    await page.getByRole('heading', { name: 'Sign in to see projects' }).waitFor();
    assert.equal(await page.getByRole('link', { name: 'demo', exact: true }).count(), 0);
    assert.ok(!(await page.content()).includes('demo-repo'));
    await expectNoAccessibilityProblems(page, 'projects-signed-out');
    await page.goto(`${product.url}/projects/demo/settings`);
    await page.getByRole('heading', { name: 'Sign in to continue' }).waitFor();
    assert.equal(await page.getByRole('heading', { name: /Settings of/ }).count(), 0);
    await page.goto(`${product.url}/workers`);
    await page.getByRole('heading', { name: 'Sign in to continue' }).waitFor();
    await context.close();
  });

  it('signed out, and signed in to another realm, /projects/demo shows the 404 page', async () => {
    const context = await newContext(browser);
    const page = await context.newPage();
    await expectNotFound(page, `${product.url}/projects/demo`);
    await expectNotFound(page, `${product.url}/projects/demo/jobs/1`);
    await signIn(page, acmeUrl, CAROL.username, CAROL.password);
    await expectNotFound(page, `${acmeUrl}/projects/demo`);
    await expectNotFound(page, `${acmeUrl}/projects/demo/jobs/1`);
    await context.close();
  });

  it('a plain member of the system realm sees the public project but no settings, and nothing of demo', async () => {
    const context = await newContext(browser);
    const page = await context.newPage();
    await signIn(page, product.url, DAVE.username, DAVE.password);
    await page.goto(`${product.url}/`);
    const open = page.getByRole('row').filter({ has: page.getByRole('link', { name: 'open', exact: true }) });
    await open.getByText('Public').waitFor();
    assert.equal(await open.getByRole('link', { name: /Settings/ }).count(), 0);
    assert.equal(await page.getByRole('link', { name: 'demo', exact: true }).count(), 0);
    await expectNoAccessibilityProblems(page, 'projects-plain-member');
    // Only a system-admin may name a repository on the server's disk; the refusal says what to give instead.
    await page.getByRole('button', { name: 'New project' }).click();
    await page.getByLabel('Name', { exact: true }).pressSequentially('daves');
    await page.getByLabel('Repository URL').pressSequentially(repository);
    await page.getByRole('button', { name: 'Create project' }).click();
    await page.getByRole('alert').getByText('repo must be an https://, http:// or ssh:// URL').waitFor();
    assert.equal(await page.getByLabel('Repository URL').getAttribute('aria-invalid'), 'true');
    const listed = await page.evaluate(async () => (await fetch('/api/v1/projects')).text());
    assert.ok(!listed.includes('daves'), 'nothing was stored');
    // A public project answers the read (may_manage false); a private one answers 404: both are the 404 page here.
    await expectNotFound(page, `${product.url}/projects/open/settings`);
    await expectNotFound(page, `${product.url}/projects/demo/settings`);
    await expectNoAccessibilityProblems(page, 'settings-not-found');
    await context.close();
  });

  it("an administrator of another realm, on that realm's host, sees no project, setting or worker of the system realm", async () => {
    const context = await newContext(browser);
    const page = await context.newPage();
    await signIn(page, acmeUrl, CAROL.username, CAROL.password);
    await page.goto(`${acmeUrl}/`);
    await page.getByRole('heading', { name: 'No projects yet' }).waitFor();
    for (const name of ['demo', 'open']) assert.equal(await page.getByRole('link', { name, exact: true }).count(), 0);
    await expectNoAccessibilityProblems(page, 'other-realm-projects');
    await expectNotFound(page, `${acmeUrl}/projects/demo/settings`);
    await expectNotFound(page, `${acmeUrl}/projects/open/settings`);
    await page.getByRole('link', { name: 'Workers' }).click();
    await page.getByRole('heading', { name: 'No workers yet' }).waitFor();
    await page.getByText("Your workers: the machines that run your projects' tasks.").waitFor();
    assert.ok(!(await page.content()).includes('dev-worker'));
    const answer = await page.evaluate(async () => (await fetch('/api/v1/workers')).json());
    assert.deepEqual(answer, { workers: [] }, 'the API agrees');
    await expectNoAccessibilityProblems(page, 'other-realm-workers');
    await context.close();
  });
});
