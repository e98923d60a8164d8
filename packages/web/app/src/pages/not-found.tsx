import { PageHeader } from '../components/common';
import { useTitle } from '../lib/use-title';

export function NotFound() {
  useTitle('Page not found');
  return (
    <section class="not-found">
      <PageHeader title="Page not found" />
      <p>
        There is nothing at <code>{location.pathname}</code>, or it belongs to a project you cannot see. If someone sent you this link, check
        that you are signed in with the right account.
      </p>
      <p>
        <a href="/">Go to your projects</a>
      </p>
    </section>
  );
}
