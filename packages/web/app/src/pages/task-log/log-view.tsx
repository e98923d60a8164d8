// The virtual list: a scroll area as tall as all the rows (capped, then scaled), holding only the rows
// in view plus a few either side. The scroll position maps to a row; a row to a chunk and a line in it.
// Chunks the rows need are fetched by range; while a chunk is not in, its rows are estimates.
import { useCallback, useEffect, useLayoutEffect, useMemo, useRef, useState } from 'preact/hooks';
import { ErrorBox, Loading } from '../../components/common';
import type { LogController } from './log-controller';
import { LogLine } from './log-line';
import { CHUNK_BYTES } from './log-store';
import { LogToolbar } from './log-toolbar';

export const ROW_HEIGHT = 20;
const OVERSCAN = 12;
/** How long the view rests before the chunks it shows are fetched. */
const SETTLE_MS = 60;
/** Browsers cap an element's height (Firefox near 17.9 M px); past this the rows are scaled. */
const MAX_HEIGHT = 8_000_000;

interface Anchor {
  chunk: number;
  /** Rows into the chunk, fractional. */
  offset: number;
  /** The chunk's rows when the anchor was taken (an estimate refined later moves the anchor with it). */
  rows: number;
}

export interface LogViewProps {
  controller: LogController;
  label: string;
  downloadUrl: string;
  selectedLine: number | null;
  onSelectLine(line: number): void;
}

function useControllerVersion(controller: LogController): number {
  const [version, setVersion] = useState(0);
  useEffect(() => controller.subscribe(() => setVersion((v) => v + 1)), [controller]);
  return version;
}

export function LogView({ controller, label, downloadUrl, selectedLine, onSelectLine }: LogViewProps) {
  useControllerVersion(controller);
  const store = controller.store;
  const scroller = useRef<HTMLDivElement>(null);
  const [viewport, setViewport] = useState(560);
  const [following, setFollowingState] = useState(true);
  const followingRef = useRef(true);
  const anchor = useRef<Anchor | null>(null);
  /** The position the view itself last set, whose scroll event is not the person's; null when none is due. */
  const expectedScroll = useRef<number | null>(null);
  const lastUserScroll = useRef(0);
  const jumpPending = useRef(false);
  const [, rerender] = useState(0);

  const setFollowing = useCallback((value: boolean) => {
    followingRef.current = value;
    setFollowingState(value);
  }, []);

  const totalRows = store.totalRows;
  const visibleRows = viewport / ROW_HEIGHT;
  const height = Math.min(totalRows * ROW_HEIGHT, MAX_HEIGHT);
  const maxScroll = Math.max(0, height - viewport);
  const maxTop = Math.max(0, totalRows - visibleRows);

  const anchorOf = (row: number): Anchor => {
    const place = store.place(Math.min(Math.floor(row), Math.max(totalRows - 1, 0)));
    if (place === null) return { chunk: 0, offset: 0, rows: 1 };
    return { chunk: place.chunk, offset: row - store.firstRowOf(place.chunk), rows: store.rowsIn(place.chunk) };
  };

  // The row at the top of the view: the end while following, else where the anchor now is.
  let topRow: number;
  if (followingRef.current || anchor.current === null) topRow = maxTop;
  else {
    const { chunk, offset, rows } = anchor.current;
    const now = store.rowsIn(chunk);
    topRow = Math.min(maxTop, Math.max(0, store.firstRowOf(chunk) + (rows === now ? offset : (offset * now) / Math.max(rows, 1))));
  }
  const scrollTop = maxTop > 0 ? (topRow / maxTop) * maxScroll : 0;

  useLayoutEffect(() => {
    const element = scroller.current;
    if (element === null) return;
    // While the person scrolls (a keyboard scroll is an animation of many frames), only a jump they
    // asked for moves the view: setting the position would stop the animation half-way.
    const scrolling = performance.now() - lastUserScroll.current < 400;
    if (scrolling && !jumpPending.current && !followingRef.current) return;
    jumpPending.current = false;
    // Only a change of half a row or more moves the view.
    const shown = maxScroll > 0 ? (element.scrollTop / maxScroll) * maxTop : 0;
    const drift = followingRef.current ? Math.abs(element.scrollTop - scrollTop) >= 1 : Math.abs(shown - topRow) >= 0.5;
    if (drift) {
      expectedScroll.current = scrollTop;
      element.scrollTop = scrollTop;
    }
  });

  useEffect(() => {
    const element = scroller.current;
    if (element === null) return;
    const observer = new ResizeObserver(() => setViewport(element.clientHeight));
    observer.observe(element);
    setViewport(element.clientHeight);
    return () => observer.disconnect();
  }, [controller.ready]);

  const onScroll = () => {
    const element = scroller.current;
    if (element === null) return;
    if (expectedScroll.current !== null && Math.abs(element.scrollTop - expectedScroll.current) < 1.5) {
      expectedScroll.current = null;
      return;
    }
    const row = maxScroll > 0 ? (element.scrollTop / maxScroll) * maxTop : 0;
    anchor.current = anchorOf(row);
    lastUserScroll.current = performance.now();
    // Scrolling away from the end stops following; coming back to it follows again.
    setFollowing(element.scrollTop >= maxScroll - 2);
    rerender((v) => v + 1);
  };

  /** Shows `row` a third of the way down the view and stops following. */
  const showRow = useCallback(
    (row: number) => {
      anchor.current = anchorOf(Math.max(0, row - Math.floor(visibleRows / 3)));
      jumpPending.current = true;
      setFollowing(false);
      rerender((v) => v + 1);
    },
    // anchorOf reads the store as it is at call time.
    [store, visibleRows, totalRows],
  );

  const jumpToEnd = () => {
    anchor.current = null;
    jumpPending.current = true;
    setFollowing(true);
    rerender((v) => v + 1);
    scroller.current?.focus();
  };
  const jumpToStart = () => {
    anchor.current = { chunk: 0, offset: 0, rows: store.rowsIn(0) };
    jumpPending.current = true;
    setFollowing(false);
    rerender((v) => v + 1);
    scroller.current?.focus();
  };

  // The line in the address (#L120): count up to it, then show it.
  useEffect(() => {
    if (selectedLine === null || !controller.ready) return;
    let live = true;
    controller
      .findLine(selectedLine)
      .then((row) => {
        if (live && row !== null) showRow(row);
      })
      .catch(() => undefined);
    return () => {
      live = false;
    };
    // Only when the wanted line (or the log) changes, not on every scroll.
  }, [selectedLine, controller, controller.ready]);

  const first = Math.max(0, Math.floor(topRow) - OVERSCAN);
  const last = Math.min(totalRows, Math.ceil(topRow + visibleRows) + OVERSCAN);
  const search = controller.search;
  const currentOffset = search !== null && search.current >= 0 ? (search.matches[search.current] ?? -1) : -1;
  const wanted = new Set<number>();
  const rows = [];
  for (let row = first; row < last; row += 1) {
    const place = store.place(row);
    if (place === null) continue;
    const top = scrollTop + (row - topRow) * ROW_HEIGHT;
    const number = store.lineNumber(place);
    if (place.start === null) {
      wanted.add(place.chunk);
      rows.push(<LogLine key={row} top={top} number={number} approximate={row + 1} bytes={null} cut={0} selected={false} query="" currentMark={-1} onSelect={onSelectLine} />);
      continue;
    }
    store.touch(place.chunk);
    const line = store.lineBytes(place.start);
    const end = place.start + line.bytes.length + line.cut;
    if (!line.complete) wanted.add(Math.floor(end / CHUNK_BYTES));
    let currentMark = -1;
    if (currentOffset >= place.start && currentOffset <= end && search !== null) {
      // The current match is the how-many-th match of its line.
      currentMark = search.matches.filter((offset) => offset >= place.start! && offset < currentOffset).length;
    }
    rows.push(
      <LogLine
        key={row}
        top={top}
        number={number}
        approximate={row + 1}
        bytes={line.bytes}
        cut={line.cut}
        selected={number !== null && number === selectedLine}
        query={search?.query ?? ''}
        currentMark={currentMark}
        onSelect={onSelectLine}
      />,
    );
  }
  const wantedKey = [...wanted].join(',');
  useEffect(() => {
    // Chunks are asked for once the view rests a moment: a fling or a Home key's animation passes
    // many chunks nobody reads.
    const timer = window.setTimeout(() => {
      for (const chunk of wanted) controller.ensure(chunk);
    }, SETTLE_MS);
    return () => window.clearTimeout(timer);
  }, [wantedKey, controller]);

  const goToMatch = useCallback(
    async (direction: 1 | -1) => {
      const offset = controller.step(direction);
      if (offset === null) return;
      const row = await controller.findOffset(offset);
      if (row !== null) showRow(row);
    },
    [controller, showRow],
  );

  const status = useMemo(() => describeLive(controller.live, following), [controller.live, following]);

  return (
    <section class="log-view" aria-label="Log">
      <LogToolbar
        controller={controller}
        following={following}
        downloadUrl={downloadUrl}
        onJumpToEnd={jumpToEnd}
        onJumpToStart={jumpToStart}
        onGoToMatch={(direction) => void goToMatch(direction)}
      />
      <p class="log-live" role="status" aria-live="polite">
        {status}
      </p>
      <ErrorBox error={controller.error} title="The log could not be read" />
      {!controller.ready && controller.error === null ? <Loading what="the log" /> : null}
      {controller.ready && store.size === 0 ? (
        <p class="log-empty">{controller.live === 'ended' ? 'This attempt wrote no log.' : 'No log yet: lines appear here as the task writes them.'}</p>
      ) : null}
      <div class={store.size === 0 ? 'log-scroller log-scroller-empty' : 'log-scroller'} ref={scroller} onScroll={onScroll} tabIndex={0} role="region" aria-label={label} style={{ height: `${Math.max(height, 3 * ROW_HEIGHT) + 2}px` }}>
        <div class="log-spacer" style={{ height: `${Math.max(height, 0)}px` }}>
          {rows}
        </div>
      </div>
    </section>
  );
}

function describeLive(live: LogController['live'], following: boolean): string {
  if (live === 'following') return following ? 'Following the log as the task writes it.' : 'The task is still writing; follow to see new lines.';
  if (live === 'reconnecting') return 'Connection lost; reconnecting to follow the log…';
  if (live === 'ended') return 'The log is complete.';
  return '';
}
