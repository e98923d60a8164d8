import { PageHeader } from '../components/common';

// Placeholder: replaced by the page's real implementation.
export default function Page() {
  return <PageHeader title="task-log" />;
}
