// Test support (compiled with the package, not a test itself): temp data dirs, a real server on a
// real port, raw HTTP requests (fetch cannot set Host), and seeding through the domain functions.
import { mkdtempSync, rmSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createManualClock, type ManualClock } from '@conveyor/kit';
import type { SigninDeps } from '../domain/deps.js';
import { addMember } from '../domain/members.js';
import { createUser } from '../domain/users.js';
import { createSigninService, type ServiceSettings } from '../main.js';
import { ARGON2ID_PARAMETERS } from '../passwords.js';
import { hash } from '@node-rs/argon2';

export const TEST_PASSWORD = 'correct horse battery staple';

export interface TestServer {
  port: number;
  deps: SigninDeps;
  /** The same deps with the cheap TEST_PASSWORD hasher, for seeding. */
  seedingDeps: SigninDeps;
  clock: ManualClock;
  dataDir: string;
  databasePath: string;
  realmsPath: string;
  close(): Promise<void>;
}

export function makeTempDir(prefix = 'signin-test-'): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

/** A real server on a free port over fresh files; `settings` overrides the limits (defaults as in production). */
export async function startTestServer(settings: Omit<Partial<ServiceSettings>, 'databasePath' | 'realmsPath'> = {}): Promise<TestServer> {
  const dataDir = makeTempDir();
  const databasePath = join(dataDir, 'signin.db');
  const realmsPath = join(dataDir, 'realms');
  const clock = createManualClock();
  const service = await createSigninService({ ...settings, databasePath, realmsPath }, { clock });
  await service.app.listen({ port: 0, host: '127.0.0.1' });
  const address = service.app.server.address();
  const port = typeof address === 'object' && address !== null ? address.port : 0;
  return {
    port,
    deps: service.deps,
    seedingDeps: await createSeedingDeps(service.deps),
    clock,
    dataDir,
    databasePath,
    realmsPath,
    async close() {
      await service.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  setCookies: string[];
  text: string;
  json: Record<string, unknown>;
}

export interface RawRequest {
  method?: string;
  path: string;
  headers?: Record<string, string>;
  /** An object is sent as JSON; a string is sent as is. */
  body?: unknown;
}

/** One HTTP request with full control of the headers (Host included). */
export function send(port: number, req: RawRequest): Promise<RawResponse> {
  const headers: Record<string, string> = { host: `127.0.0.1:${port}`, ...req.headers };
  let payload: string | undefined;
  if (req.body !== undefined) {
    payload = typeof req.body === 'string' ? req.body : JSON.stringify(req.body);
    headers['content-type'] ??= 'application/json';
    headers['content-length'] = String(Buffer.byteLength(payload));
  }
  return new Promise((resolve, reject) => {
    const outgoing = httpRequest({ host: '127.0.0.1', port, method: req.method ?? 'GET', path: req.path, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let json: Record<string, unknown> = {};
        try {
          json = JSON.parse(text) as Record<string, unknown>;
        } catch {
          // Not every answer is JSON; tests look at `text` then.
        }
        resolve({ status: res.statusCode ?? 0, headers: res.headers, setCookies: res.headers['set-cookie'] ?? [], text, json });
      });
    });
    outgoing.on('error', reject);
    if (payload !== undefined) outgoing.write(payload);
    outgoing.end();
  });
}

/**
 * Deps whose hasher answers TEST_PASSWORD with one hash made here, so seeding many users costs one
 * argon2 run (verification stays real).
 */
export async function createSeedingDeps(deps: SigninDeps): Promise<SigninDeps> {
  const shared = await hash(TEST_PASSWORD, ARGON2ID_PARAMETERS);
  return {
    ...deps,
    passwords: {
      ...deps.passwords,
      hashPassword: async (password) => (password === TEST_PASSWORD ? shared : deps.passwords.hashPassword(password)),
    },
  };
}

export interface SeedUserInput {
  username: string;
  realm?: string;
  email?: string;
  emailVerified?: boolean;
  password?: string | null;
  roles?: string[];
  membershipStatus?: 'active' | 'suspended' | 'invited' | null;
}

/**
 * A user with TEST_PASSWORD (unless told otherwise) and an active membership in `realm` (default
 * system). Pass deps from `createSeedingDeps` (TestServer.seedingDeps) to keep it cheap.
 */
export async function seedUser(deps: SigninDeps, input: SeedUserInput): Promise<string> {
  const user = await createUser(deps, {
    username: input.username,
    password: input.password === null ? undefined : (input.password ?? TEST_PASSWORD),
    email: input.email === undefined ? undefined : { email: input.email, verified: input.emailVerified ?? true, primary: true },
  });
  if (input.membershipStatus !== null) {
    await addMember(deps, { realm: input.realm ?? 'system', user: user.id, status: input.membershipStatus ?? 'active', roles: input.roles ?? [] });
  }
  return user.id;
}

/** The value of the named cookie in a Set-Cookie list. */
export function cookieValue(setCookies: string[], name: string): string | undefined {
  for (const line of setCookies) {
    const [pair] = line.split(';');
    const eq = pair?.indexOf('=') ?? -1;
    if (pair !== undefined && eq !== -1 && pair.slice(0, eq) === name) return pair.slice(eq + 1);
  }
  return undefined;
}
