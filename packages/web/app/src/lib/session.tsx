import { createContext, type ComponentChildren } from 'preact';
import { useCallback, useContext, useEffect, useState } from 'preact/hooks';
import { ApiError, signin, unwrap, type SigninSchemas } from '../api/client';

export type Realm = SigninSchemas['RealmMetadata'];
export type Session = SigninSchemas['Session'];

export interface SessionState {
  /** The Host's realm; null when the Host names no realm (the sign-in page says so). */
  realm: Realm | null;
  /** The signed-in person, or null. */
  session: Session | null;
  loading: boolean;
  /** Reads the session again (after signing in). */
  refresh(): Promise<void>;
  signOut(): Promise<void>;
}

const SessionContext = createContext<SessionState | null>(null);

export function useSession(): SessionState {
  const state = useContext(SessionContext);
  if (state === null) throw new Error('useSession outside SessionProvider');
  return state;
}

const ADMIN_ROLES = ['system-admin', 'realm-admin'];

export function isAdministrator(session: Session | null): boolean {
  return session !== null && session.roles.some((role) => ADMIN_ROLES.includes(role));
}

async function readRealm(): Promise<Realm | null> {
  try {
    return await unwrap(signin.GET('/api/v1/realm', {}));
  } catch (error) {
    if (error instanceof ApiError && error.status === 404) return null;
    throw error;
  }
}

async function readSession(): Promise<Session | null> {
  try {
    return await unwrap(signin.GET('/api/v1/session', {}));
  } catch (error) {
    if (error instanceof ApiError && error.status === 401) return null;
    throw error;
  }
}

export function SessionProvider({ children }: { children: ComponentChildren }) {
  const [realm, setRealm] = useState<Realm | null>(null);
  const [session, setSession] = useState<Session | null>(null);
  const [loading, setLoading] = useState(true);

  const refresh = useCallback(async () => {
    const [nextRealm, nextSession] = await Promise.all([readRealm(), readSession()]);
    setRealm(nextRealm);
    setSession(nextSession);
    setLoading(false);
  }, []);

  const signOut = useCallback(async () => {
    await unwrap(signin.POST('/api/v1/logout', {}));
    setSession(null);
  }, []);

  useEffect(() => {
    refresh().catch(() => setLoading(false));
  }, [refresh]);

  return <SessionContext.Provider value={{ realm, session, loading, refresh, signOut }}>{children}</SessionContext.Provider>;
}
