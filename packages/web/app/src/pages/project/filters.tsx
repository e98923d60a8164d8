import { useLocation } from 'preact-iso';
import { useEffect, useState } from 'preact/hooks';
import { shortRef } from '../../lib/format';
import type { JobListing } from './use-job-list';

/** What the branch field means to the API: a name is a branch (`main` → `refs/heads/main`); a full ref is taken as it is. */
export function refOfBranch(branch: string): string {
  return branch.startsWith('refs/') ? branch : `refs/heads/${branch}`;
}

function queryOf(branch: string, state: string): string {
  const query = new URLSearchParams();
  if (branch !== '') query.set('branch', branch);
  if (state !== '') query.set('state', state);
  const text = query.toString();
  return text === '' ? '' : `?${text}`;
}

/** Branch and state filters, kept in the address so a filtered view can be shared. */
export function JobFilters({ branch, state, branches }: { branch: string; state: string; branches: JobListing[] }) {
  const { path, route } = useLocation();
  const [typed, setTyped] = useState(branch);
  useEffect(() => setTyped(branch), [branch]);
  const known = [...new Set(branches.filter((job) => job.ref.startsWith('refs/heads/')).map((job) => shortRef(job.ref)))];
  const apply = (nextBranch: string, nextState: string) => route(`${path}${queryOf(nextBranch.trim(), nextState)}`);

  return (
    <form
      class="inline-form job-filters"
      role="search"
      aria-label="Filter jobs"
      onSubmit={(event) => {
        event.preventDefault();
        apply(typed, state);
      }}
    >
      <div>
        <label for="filter-branch">Branch</label>
        <input id="filter-branch" name="branch" list="known-branches" placeholder="any branch" value={typed} onInput={(event) => setTyped(event.currentTarget.value)} />
        <datalist id="known-branches">
          {known.map((name) => (
            <option key={name} value={name} />
          ))}
        </datalist>
      </div>
      <div>
        <label for="filter-state">State</label>
        <select id="filter-state" name="state" value={state} onChange={(event) => apply(typed, event.currentTarget.value)}>
          <option value="">Any state</option>
          <option value="running">Running</option>
          <option value="success">Succeeded</option>
          <option value="failure">Failed</option>
          <option value="canceled">Canceled</option>
        </select>
      </div>
      <button type="submit" class="button secondary">
        Filter
      </button>
      {branch !== '' || state !== '' ? (
        <a class="clear-filters" href={path}>
          Clear filters
        </a>
      ) : null}
    </form>
  );
}
