// Test support: Debian's Chromium driven by playwright-core, axe-core's accessibility check, and the
// screenshots a reviewer looks at (written to .screenshots/ at the repository root, never committed).
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { REPOSITORY_ROOT } from './product.js';

export const CHROMIUM_PATH = process.env['CONVEYOR_CHROMIUM'] ?? '/usr/bin/chromium';
export const SCREENSHOTS = join(REPOSITORY_ROOT, '.screenshots');

// Chromium reaches for Google's services at start; this machine's network refuses them, and the tests need none.
const CHROMIUM_FLAGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run', '--disable-sync', '--disable-quic'];

/**
 * Why the browser tests cannot run here, or null when they can. CI sets CONVEYOR_REQUIRE_BROWSER=1
 * (`.ci/run` installs chromium), which turns a missing browser into a failure instead of a skip.
 */
export function browserUnavailable(): string | null {
  if (existsSync(CHROMIUM_PATH)) return null;
  const reason = `no Chromium at ${CHROMIUM_PATH}: install it with \`apt-get install -y chromium\` (or set CONVEYOR_CHROMIUM)`;
  if (process.env['CONVEYOR_REQUIRE_BROWSER'] === '1') throw new Error(`${reason}; CONVEYOR_REQUIRE_BROWSER=1 forbids skipping the browser tests`);
  return reason;
}

export function launchBrowser(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_FLAGS });
}

/** A fresh profile (no cookies) at a desktop size; `*.localhost` hosts reach the loopback server. */
export function newContext(browser: Browser): Promise<BrowserContext> {
  return browser.newContext({ viewport: { width: 1280, height: 800 }, acceptDownloads: true });
}

export async function screenshot(page: Page, name: string): Promise<void> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  await page.screenshot({ path: join(SCREENSHOTS, `${name}.png`), fullPage: true });
}

const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

export interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: string[] }[];
}

/** axe-core's serious and critical violations on the page as it is now (the tests want none). */
export async function findAccessibilityProblems(page: Page): Promise<string[]> {
  // Evaluated through the DevTools protocol: the page's Content-Security-Policy rightly refuses inline scripts.
  if (!(await page.evaluate(() => 'axe' in window))) await page.evaluate(AXE_SOURCE);
  const violations = await page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run(context: Document, options: object): Promise<{ violations: AxeViolation[] }> } }).axe;
    const result = await axe.run(document, { resultTypes: ['violations'] });
    return result.violations.map((violation) => ({ id: violation.id, impact: violation.impact, help: violation.help, nodes: violation.nodes.map((node) => ({ target: node.target })) }));
  });
  return violations
    .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
    .map((violation) => `${violation.impact} ${violation.id}: ${violation.help} (${violation.nodes.map((node) => node.target.join(' ')).join(', ')})`);
}

/** Signs in as a person does: the identifier, Continue, the password, Sign in. */
export async function signIn(page: Page, baseUrl: string, username: string, password: string): Promise<void> {
  await page.goto(`${baseUrl}/sign-in`);
  await page.getByLabel('Username or email').pressSequentially(username);
  await page.getByRole('button', { name: 'Continue' }).click();
  await page.getByLabel('Password', { exact: true }).pressSequentially(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expectSignedIn(page);
}

/** Waits for the signed-in header; a refusal fails at once with the words the page showed. */
export async function expectSignedIn(page: Page): Promise<void> {
  const signOut = page.getByRole('button', { name: 'Sign out' });
  const refusal = page.locator('#sign-in-error');
  await signOut.or(refusal).first().waitFor();
  if (await refusal.isVisible()) throw new Error(`the sign-in was refused: ${await refusal.innerText()}`);
}
