import { ApiError, describeError } from '../api/client';

function formatWait(seconds: number): string {
  if (seconds < 60) return `${seconds} second${seconds === 1 ? '' : 's'}`;
  const minutes = Math.ceil(seconds / 60);
  return `${minutes} minute${minutes === 1 ? '' : 's'}`;
}

function formatClock(seconds: number, now: number): string {
  return new Date(now + seconds * 1000).toLocaleTimeString([], { hour: '2-digit', minute: '2-digit', second: seconds < 60 ? '2-digit' : undefined });
}

export const UNKNOWN_REALM = 'This address belongs to no organisation on this server. Check the address you were given, or ask an administrator for the right one.';

/**
 * Every refusal of the sign-in service in words a person understands, with what to do next. The codes
 * are the sign-in service's catalogue (docs/api.md); an unknown code falls back to the service's sentence.
 */
export function describeSignInError(error: unknown, now = Date.now()): string {
  if (!(error instanceof ApiError)) return describeError(error);
  switch (error.code) {
    case 'invalid_credentials':
      return 'That username or password is not right. Check both (passwords are case-sensitive) and try again.';
    case 'too_many_attempts': {
      const wait = error.retryAfter ?? 60;
      return `Too many failed sign-in attempts. For your account's safety, try again in ${formatWait(wait)} (at ${formatClock(wait, now)}).`;
    }
    case 'busy':
      return `The server is busy checking other sign-ins. Try again in ${formatWait(error.retryAfter ?? 1)}.`;
    case 'provider_required':
      return "This account signs in through its organisation's identity provider. Conveyor cannot sign in through an identity provider yet: that is coming. Until then, ask an administrator for a password for this account.";
    case 'provider_disabled':
      return "This account's identity provider is switched off, so it cannot sign in. Ask an administrator to switch the provider back on or to give the account a password.";
    case 'home_realm_conflict':
      return 'Your email address belongs to another organisation than your account does. Ask an administrator to move the account, or sign in with your username.';
    case 'unknown_realm':
      return UNKNOWN_REALM;
    case 'invalid_request':
      return `The sign-in was refused: ${error.message}. Correct it and try again.`;
    case 'not_authenticated':
      return 'Your session has ended. Sign in again.';
    default:
      return describeError(error);
  }
}
