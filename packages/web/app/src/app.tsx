import type { ComponentType } from 'preact';
import { ErrorBoundary, LocationProvider, Route, Router, lazy, useLocation } from 'preact-iso';
import { useEffect, useState } from 'preact/hooks';
import { Layout } from './components/layout';
import { PageFailure } from './components/page-failure';
import { SessionProvider, useSession } from './lib/session';
import { NotFound } from './pages/not-found';
import { SignIn } from './pages/sign-in';

// The first page a person opens loads only the shell, the sign-in page and the projects list; every
// other page is its own chunk, fetched when first visited (the log viewer is the largest). A chunk that
// cannot be fetched (the server was upgraded since this page loaded, or the network failed) shows the
// failure page with a Reload button: preact-iso's lazy() would otherwise wait for it forever.
function lazyPage(load: () => Promise<{ default: ComponentType }>) {
  return lazy(() => load().catch((error: unknown) => ({ default: () => <PageFailure error={error} /> })));
}

const Projects = lazyPage(() => import('./pages/projects'));
const Project = lazyPage(() => import('./pages/project'));
const ProjectSettings = lazyPage(() => import('./pages/project-settings'));
const Job = lazyPage(() => import('./pages/job'));
const TaskLog = lazyPage(() => import('./pages/task-log'));
const Workers = lazyPage(() => import('./pages/workers'));

function Routes() {
  const { loading } = useSession();
  // The session decides what each page shows: wait for it rather than flash a signed-out page.
  if (loading) return null;
  return (
    <Router>
      <Route path="/sign-in" component={SignIn} />
      <Route path="/" component={Projects} />
      <Route path="/projects/:project" component={Project} />
      <Route path="/projects/:project/settings" component={ProjectSettings} />
      <Route path="/projects/:project/jobs/:job" component={Job} />
      <Route path="/projects/:project/jobs/:job/tasks/:task" component={TaskLog} />
      <Route path="/workers" component={Workers} />
      <Route default component={NotFound} />
    </Router>
  );
}

/** The routes, or what went wrong when a page failed to load or draw; another address tries again. */
function Pages() {
  const { path } = useLocation();
  const [failure, setFailure] = useState<{ path: string; error: unknown } | null>(null);
  useEffect(() => setFailure((current) => (current !== null && current.path !== path ? null : current)), [path]);
  if (failure !== null && failure.path === path) return <PageFailure error={failure.error} />;
  return (
    <ErrorBoundary onError={(error) => setFailure({ path: location.pathname, error })}>
      <Routes />
    </ErrorBoundary>
  );
}

export function App() {
  return (
    <LocationProvider>
      <SessionProvider>
        <Layout>
          <Pages />
        </Layout>
      </SessionProvider>
    </LocationProvider>
  );
}
