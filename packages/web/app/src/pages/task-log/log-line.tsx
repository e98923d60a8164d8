// One row of the log: its number (a link to the line) and its text with colours and search marks.
import type { JSX } from 'preact';
import { parseAnsiLine, type Segment } from './ansi';

const decoder = new TextDecoder('utf-8');

export interface LineProps {
  top: number;
  /** Exact line number, or null while the lines before it are not counted. */
  number: number | null;
  /** An estimate shown while `number` is unknown. */
  approximate: number;
  bytes: Uint8Array | null;
  cut: number;
  selected: boolean;
  query: string;
  /** Which of this line's marks is the current match, or -1. */
  currentMark: number;
  onSelect(line: number): void;
}

/** Splits segments where the query occurs (ignoring case); each occurrence becomes a <mark>. */
function markQuery(segments: Segment[], query: string, currentMark: number): JSX.Element[] {
  const out: JSX.Element[] = [];
  const needle = query.toLowerCase();
  let markIndex = 0;
  let key = 0;
  const span = (segment: Segment, text: string) =>
    segment.classes === '' && segment.style === '' ? (
      <span key={key++}>{text}</span>
    ) : (
      <span key={key++} class={segment.classes || undefined} style={segment.style || undefined}>
        {text}
      </span>
    );
  for (const segment of segments) {
    if (needle === '') {
      out.push(span(segment, segment.text));
      continue;
    }
    const lower = segment.text.toLowerCase();
    let at = 0;
    for (let found = lower.indexOf(needle); found !== -1; found = lower.indexOf(needle, found + needle.length)) {
      if (found > at) out.push(span(segment, segment.text.slice(at, found)));
      const current = markIndex === currentMark;
      out.push(
        <mark key={key++} class={current ? 'current' : undefined}>
          {span(segment, segment.text.slice(found, found + needle.length))}
        </mark>,
      );
      markIndex += 1;
      at = found + needle.length;
    }
    if (at < segment.text.length) out.push(span(segment, segment.text.slice(at)));
  }
  return out;
}

export function LogLine(props: LineProps) {
  const classes = ['log-row'];
  if (props.selected) classes.push('selected');
  if (props.currentMark >= 0) classes.push('has-current');
  const style = { transform: `translateY(${props.top}px)` };
  const gutter =
    props.number !== null ? (
      <a
        class="ln"
        href={`#L${props.number}`}
        aria-label={`Line ${props.number}`}
        onClick={(event) => {
          event.preventDefault();
          props.onSelect(props.number as number);
        }}
      >
        {props.number}
      </a>
    ) : (
      <span class="ln approximate" title="About this line number: the lines before it are not counted yet (Number all lines counts them)">
        ≈{props.approximate}
      </span>
    );
  if (props.bytes === null) {
    return (
      <div class={classes.join(' ')} style={style}>
        {gutter}
        <span class="log-text muted">…</span>
      </div>
    );
  }
  const segments = parseAnsiLine(decoder.decode(props.bytes));
  return (
    <div class={classes.join(' ')} style={style} data-line={props.number ?? undefined}>
      {gutter}
      <span class="log-text">
        {markQuery(segments, props.query, props.currentMark)}
        {props.cut > 0 ? <span class="log-cut"> … {props.cut} more bytes on this line (download the raw log to see them)</span> : null}
      </span>
    </div>
  );
}
