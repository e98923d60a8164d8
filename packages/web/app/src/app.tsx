import { ErrorBoundary, LocationProvider, Route, Router, lazy } from 'preact-iso';
import { Layout } from './components/layout';
import { SessionProvider, useSession } from './lib/session';
import { NotFound } from './pages/not-found';
import { SignIn } from './pages/sign-in';

// The first page a person opens loads only the shell, the sign-in page and the projects list; every
// other page is its own chunk, fetched when first visited (the log viewer is the largest).
const Projects = lazy(() => import('./pages/projects'));
const Project = lazy(() => import('./pages/project'));
const ProjectSettings = lazy(() => import('./pages/project-settings'));
const Job = lazy(() => import('./pages/job'));
const TaskLog = lazy(() => import('./pages/task-log'));
const Workers = lazy(() => import('./pages/workers'));

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

export function App() {
  return (
    <LocationProvider>
      <SessionProvider>
        <Layout>
          <ErrorBoundary>
            <Routes />
          </ErrorBoundary>
        </Layout>
      </SessionProvider>
    </LocationProvider>
  );
}
