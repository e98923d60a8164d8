// Test support: the webhook deliveries in packages/pipeline/test-data/webhooks, signed as each service signs them.
import { createHmac } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { findRepositoryRoot } from './repository-root.js';

export interface WebhookFixture {
  name: string;
  headers: Record<string, string>;
  body: Record<string, unknown>;
  expect: { kind: string; sha: string | null; ref: string | null; actor: string | null };
}

/** The commit every fixture names; a test replaces it with a commit of its own repository. */
export const FIXTURE_SHA = '3f786850e387550fdab836ed7e6dc881de23001b';

export const WEBHOOK_FIXTURES = join(findRepositoryRoot(), 'packages', 'pipeline', 'test-data', 'webhooks');

export function loadWebhookFixtures(): WebhookFixture[] {
  return readdirSync(WEBHOOK_FIXTURES)
    .filter((name) => name.endsWith('.json'))
    .sort()
    .map((name) => ({ name, ...(JSON.parse(readFileSync(join(WEBHOOK_FIXTURES, name), 'utf8')) as Omit<WebhookFixture, 'name'>) }));
}

/** Serialises the body (with `sha` in place of the fixture commit) and fills every signature placeholder. */
export function prepareDelivery(fixture: WebhookFixture, sha: string, secret: string): { body: string; headers: Record<string, string> } {
  const body = JSON.stringify(fixture.body).split(FIXTURE_SHA).join(sha);
  const hmac = (algorithm: string): string => createHmac(algorithm, secret).update(body).digest('hex');
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(fixture.headers)) {
    const lower = name.toLowerCase();
    if (!value.startsWith('<')) headers[name] = value;
    else if (lower === 'x-hub-signature-256') headers[name] = `sha256=${hmac('sha256')}`;
    else if (lower === 'x-hub-signature') headers[name] = `sha1=${hmac('sha1')}`;
    else if (lower === 'x-gitlab-token') headers[name] = secret;
    else headers[name] = hmac('sha256');
  }
  return { body, headers };
}
