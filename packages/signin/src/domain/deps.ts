import { randomUUID } from 'node:crypto';
import type { Clock } from '../clock.js';
import type { PasswordHasher } from '../passwords.js';
import type { SigninStore } from '../store/store.js';

/** What domain operations need; built once in main.ts (or a test) and passed down. */
export interface SigninDeps {
  store: SigninStore;
  clock: Clock;
  passwords: PasswordHasher;
}

/** Opaque ids: random UUIDs (lower-case, safe as realm file names). */
export function newId(): string {
  return randomUUID();
}
