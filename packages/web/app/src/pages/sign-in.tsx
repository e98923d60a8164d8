import { useLocation } from 'preact-iso';
import { useEffect, useRef, useState } from 'preact/hooks';
import { signin, unwrap, type SigninSchemas } from '../api/client';
import { useSession, type Realm } from '../lib/session';
import { useTitle } from '../lib/use-title';
import { describeSignInError, UNKNOWN_REALM } from './sign-in-errors';

type Resolution = SigninSchemas['Resolution'];

/** Only a path on this site is a place to return to after signing in (never `//evil.example`). */
function safeNext(next: string | undefined): string {
  return next !== undefined && next.startsWith('/') && !next.startsWith('//') && !next.startsWith('/\\') ? next : '/';
}

/** The realm's accent colour, when its branding names one as `color` (#rgb or #rrggbb). */
function brandColor(realm: Realm): string | undefined {
  const color = (realm.branding as Record<string, unknown>)['color'];
  return typeof color === 'string' && /^#([0-9a-f]{3}|[0-9a-f]{6})$/i.test(color) ? color : undefined;
}

function brandMessage(realm: Realm): string | undefined {
  const message = (realm.branding as Record<string, unknown>)['message'];
  return typeof message === 'string' && message.trim() !== '' ? message : undefined;
}

function ProviderComing({ resolution, onBack }: { resolution: Resolution; onBack(): void }) {
  const provider = resolution.provider?.display_name ?? 'your identity provider';
  return (
    <div class="notice" role="alert">
      <p>
        <strong>This account signs in through {provider}.</strong> Conveyor cannot sign in through an identity provider yet: that is coming.
        Until then, ask an administrator for a password for this account.
      </p>
      <button type="button" class="button secondary" onClick={onBack}>
        Use another account
      </button>
    </div>
  );
}

export function SignIn() {
  const { realm, session, refresh } = useSession();
  const { query, route } = useLocation();
  const [identifier, setIdentifier] = useState('');
  const [password, setPassword] = useState('');
  const [keep, setKeep] = useState(false);
  const [step, setStep] = useState<'identifier' | 'password' | 'provider'>('identifier');
  const [resolution, setResolution] = useState<Resolution | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const passwordField = useRef<HTMLInputElement>(null);
  const identifierField = useRef<HTMLInputElement>(null);
  useTitle('Sign in');

  useEffect(() => {
    (step === 'password' ? passwordField : identifierField).current?.focus();
  }, [step]);

  if (realm === null) {
    return (
      <section class="sign-in">
        <h1>Sign in</h1>
        <p role="alert">{UNKNOWN_REALM}</p>
      </section>
    );
  }
  if (session !== null) {
    return (
      <section class="sign-in">
        <h1>You are signed in</h1>
        <p>
          Signed in as <strong>{session.user.username}</strong> in {realm.display_name}. <a href={safeNext(query['next'])}>Continue</a>
        </p>
      </section>
    );
  }

  const resolve = async (event: Event) => {
    event.preventDefault();
    setError(null);
    if (identifier.trim() === '') {
      setError('Enter your username or email address.');
      return;
    }
    setBusy(true);
    try {
      const result = await unwrap(signin.POST('/api/v1/login/resolve', { body: { identifier: identifier.trim() } }));
      setResolution(result);
      setStep(result.next === 'provider' ? 'provider' : 'password');
    } catch (caught) {
      setError(describeSignInError(caught));
    } finally {
      setBusy(false);
    }
  };

  const submitPassword = async (event: Event) => {
    event.preventDefault();
    setError(null);
    if (password === '') {
      setError('Enter your password.');
      return;
    }
    setBusy(true);
    try {
      const body = { identifier: identifier.trim(), password, ...(realm.allow_session_duration_choice ? { long_session: keep } : {}) };
      await unwrap(signin.POST('/api/v1/login/password', { body }));
      await refresh();
      route(safeNext(query['next']));
    } catch (caught) {
      setError(describeSignInError(caught));
      setPassword('');
      passwordField.current?.focus();
    } finally {
      setBusy(false);
    }
  };

  // "Not you?" and "Use another account" start over with an empty identifier.
  const back = () => {
    setStep('identifier');
    setIdentifier('');
    setPassword('');
    setError(null);
    setResolution(null);
  };

  const accent = brandColor(realm);
  const message = brandMessage(realm);
  return (
    <section class="sign-in" style={accent !== undefined ? { '--accent': accent } : undefined}>
      <h1>Sign in to {realm.display_name}</h1>
      {message !== undefined ? <p class="subtitle">{message}</p> : null}
      {step === 'identifier' ? (
        <form onSubmit={(event) => void resolve(event)} noValidate>
          <label for="identifier">Username or email</label>
          <input
            id="identifier"
            ref={identifierField}
            name="username"
            autoComplete="username"
            autoCapitalize="none"
            spellcheck={false}
            value={identifier}
            onInput={(event) => setIdentifier(event.currentTarget.value)}
            aria-describedby={error !== null ? 'sign-in-error' : undefined}
          />
          <button type="submit" class="button" disabled={busy}>
            {busy ? 'Checking…' : 'Continue'}
          </button>
        </form>
      ) : null}
      {step === 'provider' && resolution !== null ? <ProviderComing resolution={resolution} onBack={back} /> : null}
      {step === 'password' ? (
        <form onSubmit={(event) => void submitPassword(event)} noValidate>
          <p class="identity">
            Signing in as <strong>{identifier.trim()}</strong>{' '}
            <button type="button" class="link-button" onClick={back}>
              Not you?
            </button>
          </p>
          <input type="hidden" name="username" autoComplete="username" value={identifier.trim()} />
          <label for="password">Password</label>
          <input
            id="password"
            ref={passwordField}
            type="password"
            name="password"
            autoComplete="current-password"
            value={password}
            onInput={(event) => setPassword(event.currentTarget.value)}
            aria-describedby={error !== null ? 'sign-in-error' : undefined}
          />
          {realm.allow_session_duration_choice ? (
            <label class="checkbox">
              <input type="checkbox" checked={keep} onChange={(event) => setKeep(event.currentTarget.checked)} />
              Keep me signed in for 7 days
            </label>
          ) : null}
          <button type="submit" class="button" disabled={busy}>
            {busy ? 'Signing in…' : 'Sign in'}
          </button>
        </form>
      ) : null}
      {error !== null ? (
        <p id="sign-in-error" class="form-error" role="alert">
          {error}
        </p>
      ) : null}
    </section>
  );
}
