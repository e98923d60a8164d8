// The sign-in page and the shell in a real browser against `conveyor dev`: typing into the labelled
// fields, every refusal in words, signing out, the 404 page, and axe-core on each.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser } from 'playwright-core';
import { ADMIN, browserUnavailable, expectSignedIn, findAccessibilityProblems, launchBrowser, newContext, screenshot, startProduct, type Product } from './testing/index.js';

const skip = browserUnavailable();

describe('sign in, sign out and the shell', { skip: skip ?? false }, () => {
  let product: Product;
  let browser: Browser;

  before(async () => {
    [product, browser] = await Promise.all([startProduct(), launchBrowser()]);
  });
  after(async () => {
    await browser?.close();
    await product?.stop();
  });

  it('signs in by typing into the labelled fields, keeps the choice of duration, and signs out', async () => {
    const context = await newContext(browser);
    const page = await context.newPage();
    await page.goto(`${product.url}/sign-in`);
    await page.getByRole('heading', { name: 'Sign in to' }).waitFor();
    assert.deepEqual(await findAccessibilityProblems(page), []);
    await screenshot(page, 'sign-in');
    await page.getByLabel('Username or email').pressSequentially(ADMIN.username);
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.getByLabel('Keep me signed in for 7 days').check();
    await page.getByLabel('Password', { exact: true }).pressSequentially(ADMIN.password);
    assert.deepEqual(await findAccessibilityProblems(page), []);
    await screenshot(page, 'sign-in-password');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('button', { name: 'Sign out' }).waitFor();
    const cookie = (await context.cookies()).find((candidate) => candidate.name === 'auth_session_system');
    assert.ok(cookie !== undefined, 'the session cookie is set');
    assert.ok(cookie.expires * 1000 - Date.now() > 6 * 86_400_000, 'keep me signed in asked for the 7-day session');
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('heading', { name: 'Sign in to' }).waitFor();
    assert.equal((await context.cookies()).find((candidate) => candidate.name === 'auth_session_system'), undefined);
    await context.close();
  });

  it('says in words why a sign-in failed, and when to try again after too many attempts', async () => {
    const context = await newContext(browser);
    const page = await context.newPage();
    await page.goto(`${product.url}/sign-in`);
    await page.getByLabel('Username or email').pressSequentially('nobody-here');
    await page.getByRole('button', { name: 'Continue' }).click();
    for (let attempt = 0; attempt < 10; attempt += 1) {
      await page.getByLabel('Password', { exact: true }).pressSequentially(`wrong ${attempt}`);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.getByRole('alert').filter({ hasText: attempt < 9 ? 'not right' : /not right|Too many/ }).waitFor();
    }
    await page.getByLabel('Password', { exact: true }).pressSequentially('wrong again');
    await page.getByRole('button', { name: 'Sign in' }).click();
    const alert = page.getByRole('alert').filter({ hasText: 'Too many failed sign-in attempts' });
    await alert.waitFor();
    assert.match(await alert.innerText(), /try again in \d+ (second|minute)s? \(at \d/);
    assert.deepEqual(await findAccessibilityProblems(page), []);
    await screenshot(page, 'sign-in-too-many-attempts');
    await context.close();
  });

  it("shows each realm's own sign-in: its name and branding, the duration choice only where allowed, and which provider is coming", async () => {
    await product.cli(['signin', 'admin', 'realm', 'create', '--slug', 'acme', '--display-name', 'Acme Corp', '--host', 'acme.localhost', '--no-session-duration-choice']);
    await product.cli(['signin', 'admin', 'realm', 'update', 'acme', '--branding', '{"color":"#b3261e","message":"Acme engineers only"}']);
    await product.cli(['signin', 'admin', 'domain', 'add', '--realm', 'acme', '--domain', 'acme.example', '--verified']);
    await product.cli(['signin', 'admin', 'provider', 'add', '--realm', 'acme', '--slug', 'acme-sso', '--display-name', 'Acme SSO', '--issuer', 'https://sso.acme.example', '--client-id', 'conveyor', '--client-secret-stdin'], 'client secret\n');
    await product.cli(['signin', 'admin', 'provider', 'map-domain', '--realm', 'acme', '--domain', 'acme.example', '--provider', 'acme-sso']);
    await product.cli(['signin', 'admin', 'user', 'create', '--username', 'ada', '--password-stdin'], 'ada password 1\n');
    await product.cli(['signin', 'admin', 'member', 'add', '--realm', 'acme', '--user', 'ada']);
    const context = await newContext(browser);
    const page = await context.newPage();
    const acme = `http://acme.localhost:${product.port}`;
    await page.goto(`${acme}/sign-in`);
    await page.getByRole('heading', { name: 'Sign in to Acme Corp' }).waitFor();
    await page.getByText('Acme engineers only').waitFor();
    await page.getByLabel('Username or email').pressSequentially('someone@acme.example');
    await page.getByRole('button', { name: 'Continue' }).click();
    const coming = page.getByRole('alert').filter({ hasText: 'This account signs in through Acme SSO' });
    await coming.waitFor();
    assert.match(await coming.innerText(), /coming/);
    assert.equal(await page.getByLabel('Password', { exact: true }).count(), 0, 'no password field for a provider account');
    assert.deepEqual(await findAccessibilityProblems(page), []);
    await screenshot(page, 'sign-in-provider-coming');
    await page.getByRole('button', { name: 'Use another account' }).click();
    await page.getByLabel('Username or email').pressSequentially('ada');
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.getByLabel('Password', { exact: true }).waitFor();
    assert.equal(await page.getByLabel('Keep me signed in for 7 days').count(), 0, 'the realm does not offer the choice');
    await page.getByLabel('Password', { exact: true }).pressSequentially('ada password 1');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expectSignedIn(page);
    const cookie = (await context.cookies()).find((candidate) => candidate.name === 'auth_session_acme');
    assert.ok(cookie !== undefined && cookie.expires * 1000 - Date.now() < 13 * 3_600_000, 'the 12-hour session');
    await context.close();
  });

  it('shows a 404 page for an unknown address, with a way back', async () => {
    const context = await newContext(browser);
    const page = await context.newPage();
    const response = await page.goto(`${product.url}/no/such/page`);
    assert.equal(response?.status(), 200);
    await page.getByRole('heading', { name: 'Page not found' }).waitFor();
    assert.deepEqual(await findAccessibilityProblems(page), []);
    await screenshot(page, 'not-found');
    await page.getByRole('link', { name: 'Go to your projects' }).click();
    await page.waitForURL(`${product.url}/`);
    await context.close();
  });

  it('says a page could not be loaded, and how to get it, when a part of it is missing (as after an upgrade)', async () => {
    const context = await newContext(browser);
    const page = await context.newPage();
    await page.goto(`${product.url}/`);
    await page.getByRole('heading', { name: 'Projects', exact: true }).waitFor();
    // The workers page's chunk is fetched when the page is first opened: as after an upgrade, it is gone.
    await page.route(/\/assets\/workers-[^/]*\.js$/, (route) => route.fulfill({ status: 404, body: 'gone' }));
    await page.evaluate(() => {
      history.pushState(null, '', '/workers');
      dispatchEvent(new PopStateEvent('popstate'));
    });
    await page.getByRole('heading', { name: 'This page could not be shown' }).waitFor();
    await page.getByRole('button', { name: 'Reload the page' }).waitFor();
    assert.deepEqual(await findAccessibilityProblems(page), []);
    await screenshot(page, 'page-failure');
    await page.unroute(/\/assets\/workers-[^/]*\.js$/);
    await page.getByRole('button', { name: 'Reload the page' }).click();
    await page.getByRole('heading', { name: 'Sign in to continue' }).waitFor();
    await context.close();
  });

  it('keeps a sign-in from sending anyone to another site afterwards', async () => {
    const context = await newContext(browser);
    const page = await context.newPage();
    await page.goto(`${product.url}/sign-in?next=//evil.example/`);
    await page.getByLabel('Username or email').pressSequentially(ADMIN.username);
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.getByLabel('Password', { exact: true }).pressSequentially(ADMIN.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('button', { name: 'Sign out' }).waitFor();
    assert.equal(new URL(page.url()).origin, product.url);
    await context.close();
  });
});
