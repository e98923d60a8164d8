import { randomUUID } from 'node:crypto';
import type { Clock } from '@conveyor/kit';
import type { PasswordHasher } from '../passwords.js';
import type { SigninStore } from '../store/types.js';
import type { SessionEnds } from './session-ends.js';

/** Failure limits of password sign-in (AUTH_MAX_FAILURES, AUTH_MAX_IP_FAILURES). */
export interface SignInLimits {
  /** Per normalised identifier, whether or not the account exists. */
  maxFailures: number;
  /** Per client IP. */
  maxIpFailures: number;
}

export const DEFAULT_SIGN_IN_LIMITS: SignInLimits = Object.freeze({ maxFailures: 10, maxIpFailures: 100 });

/** What domain operations need; built once in main.ts (or a test) and passed down. */
export interface SigninDeps {
  store: SigninStore;
  clock: Clock;
  passwords: PasswordHasher;
  limits: SignInLimits;
  /** Session ends in this process, for caches of session checks (the pipeline's session resolver). */
  sessionEnds: SessionEnds;
}

/** Opaque ids: random UUIDs (lower-case, safe as realm file names). */
export function newId(): string {
  return randomUUID();
}
