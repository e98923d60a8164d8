import type { ComponentChildren } from 'preact';
import { useLocation } from 'preact-iso';
import { useEffect, useRef } from 'preact/hooks';
import { describeError } from '../api/client';
import { useSession } from '../lib/session';

function NavLink({ href, children }: { href: string; children: ComponentChildren }) {
  const { path } = useLocation();
  const current = href === '/' ? path === '/' || path.startsWith('/projects') : path.startsWith(href);
  return (
    <a href={href} class="nav-link" aria-current={current ? 'page' : undefined}>
      {children}
    </a>
  );
}

function Account() {
  const { session, signOut } = useSession();
  const { route, path } = useLocation();
  if (session === null) {
    return path === '/sign-in' ? null : (
      <a class="button" href={`/sign-in?next=${encodeURIComponent(path)}`}>
        Sign in
      </a>
    );
  }
  const leave = async () => {
    try {
      await signOut();
    } catch (error) {
      window.alert(`Signing out failed: ${describeError(error)}`);
      return;
    }
    route('/sign-in');
  };
  return (
    <div class="account">
      <span class="account-name" title={session.user.username}>
        {session.user.display_name || session.user.username}
      </span>
      <button type="button" class="button secondary" onClick={() => void leave()}>
        Sign out
      </button>
    </div>
  );
}

/** The frame of every page: a skip link, the header with navigation and account, and the main landmark. */
export function Layout({ children }: { children: ComponentChildren }) {
  const { realm, session } = useSession();
  const { path } = useLocation();
  const firstPath = useRef(path);
  // A link followed inside the application changes the page without a load: the focus would stay on a
  // link that is gone. Like a page load, it starts again at the top of the new page's content, where a
  // screen reader reads the new page and the next Tab reaches its first control. (Query and hash
  // changes, such as a filter or a line link, keep the focus where it is.)
  useEffect(() => {
    if (path === firstPath.current) return;
    firstPath.current = path;
    document.getElementById('main')?.focus({ preventScroll: true });
    window.scrollTo(0, 0);
  }, [path]);
  return (
    <>
      <a class="skip-link" href="#main">
        Skip to content
      </a>
      <header class="top">
        <a href="/" class="brand">
          <img src="/favicon.svg" alt="" width="24" height="24" />
          <span>Conveyor</span>{' '}
          {realm !== null && realm.slug !== 'system' ? <span class="realm-name">{realm.display_name}</span> : null}
        </a>
        <nav aria-label="Main">
          <NavLink href="/">Projects</NavLink>
          {session !== null ? <NavLink href="/workers">Workers</NavLink> : null}
        </nav>
        <Account />
      </header>
      <main id="main" tabIndex={-1}>
        {children}
      </main>
    </>
  );
}
