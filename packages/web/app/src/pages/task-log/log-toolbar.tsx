// Above the log: search with next/previous and its count, following, jumps, counting and the raw download.
import { useEffect, useRef, useState } from 'preact/hooks';
import { describeError } from '../../api/client';
import { formatBytes } from '../../lib/format';
import type { LogController } from './log-controller';

export interface ToolbarProps {
  controller: LogController;
  following: boolean;
  downloadUrl: string;
  onJumpToEnd(): void;
  onJumpToStart(): void;
  onGoToMatch(direction: 1 | -1): void;
}

/** Typing pauses this long before a search of the whole log starts. */
const SEARCH_DELAY_MS = 350;

function describeSearch(controller: LogController): string {
  const search = controller.search;
  if (search === null) return '';
  if (search.error !== null) return `The search stopped: ${describeError(search.error)}`;
  if (!search.done) {
    const progress = search.progress;
    const percent = progress === null || progress.size === 0 ? 0 : Math.floor((progress.scanned / progress.size) * 100);
    return `Searching… ${percent}% of ${formatBytes(progress?.size ?? 0)}`;
  }
  const total = `${search.matches.length.toLocaleString('en')}${search.more ? '+' : ''}`;
  if (search.matches.length === 0) return `No matches for “${search.query}”`;
  return search.current === -1 ? `${total} matches` : `${(search.current + 1).toLocaleString('en')} of ${total}`;
}

export function LogToolbar({ controller, following, downloadUrl, onJumpToEnd, onJumpToStart, onGoToMatch }: ToolbarProps) {
  const [query, setQuery] = useState('');
  const searched = useRef('');
  const timer = useRef<number | undefined>(undefined);
  const [counting, setCounting] = useState(false);

  const startSearch = (text: string, thenGo: 1 | -1 | null) => {
    window.clearTimeout(timer.current);
    searched.current = text;
    void controller.find(text).then(() => {
      const search = controller.search;
      if (thenGo !== null && search !== null && search.done && search.query === text && search.current === -1) onGoToMatch(thenGo);
    });
  };

  useEffect(() => () => window.clearTimeout(timer.current), []);

  const onInput = (text: string) => {
    setQuery(text);
    window.clearTimeout(timer.current);
    timer.current = window.setTimeout(() => startSearch(text, 1), SEARCH_DELAY_MS);
  };

  const onKeyDown = (event: KeyboardEvent) => {
    if (event.key !== 'Enter') return;
    event.preventDefault();
    const direction = event.shiftKey ? -1 : 1;
    if (query !== searched.current) startSearch(query, direction);
    else onGoToMatch(direction);
  };

  const search = controller.search;
  const canStep = search !== null && search.done && search.matches.length > 0;
  const store = controller.store;
  const allCounted = store.countedBefore(store.chunkCount);

  return (
    <div class="log-toolbar">
      <div class="log-search">
        <label for="log-search">Search the log</label>
        <input id="log-search" type="search" value={query} autoComplete="off" onInput={(event) => onInput(event.currentTarget.value)} onKeyDown={onKeyDown} />
        <button type="button" class="button secondary small" aria-label="Previous match" disabled={!canStep} onClick={() => onGoToMatch(-1)}>
          ↑ Previous
        </button>
        <button type="button" class="button secondary small" aria-label="Next match" disabled={!canStep} onClick={() => onGoToMatch(1)}>
          ↓ Next
        </button>
        <span class="log-search-count" role="status" aria-live="polite">
          {describeSearch(controller)}
        </span>
      </div>
      <div class="log-actions">
        {!allCounted ? (
          <button
            type="button"
            class="button secondary small"
            disabled={counting}
            onClick={() => {
              setCounting(true);
              void controller.countAll().finally(() => setCounting(false));
            }}
          >
            {counting ? 'Counting lines…' : 'Number all lines'}
          </button>
        ) : null}
        <button type="button" class="button secondary small" onClick={onJumpToStart}>
          Jump to start
        </button>
        {!following ? (
          <button type="button" class="button small" onClick={onJumpToEnd}>
            {controller.live === 'following' || controller.live === 'reconnecting' ? 'Follow the log' : 'Jump to end'}
          </button>
        ) : null}
        <a class="button secondary small" href={downloadUrl} download>
          Download raw log
        </a>
      </div>
    </div>
  );
}
