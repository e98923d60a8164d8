// The sign-in page and the shell in a real browser against `conveyor dev`: typing into the labelled
// fields, every refusal in words, signing out, the 404 page, and axe-core on each.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser } from 'playwright-core';
import { ADMIN, browserUnavailable, findAccessibilityProblems, launchBrowser, newContext, screenshot, startProduct, type Product } from './testing/index.js';

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
