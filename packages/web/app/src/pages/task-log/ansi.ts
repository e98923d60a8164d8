// Terminal colours in a log line, as spans with classes: SGR foreground and background (30–37, 90–97,
// 40–47, 100–107), 256 colours and truecolour (as inline colours), bold, italic, underline and reset.
// Every other escape sequence is removed. The text stays text: the caller renders it as text nodes,
// never as HTML, because a log is whatever the task printed.

export interface Segment {
  text: string;
  /** Space-separated classes (`ansi-fg-1 ansi-bold`), or '' for plain text. */
  classes: string;
  /** An inline colour for 256-colour and truecolour codes. */
  style: string;
}

interface Style {
  fg: string | null;
  bg: string | null;
  fgColor: string | null;
  bgColor: string | null;
  bold: boolean;
  dim: boolean;
  italic: boolean;
  underline: boolean;
}

const PLAIN: Style = { fg: null, bg: null, fgColor: null, bgColor: null, bold: false, dim: false, italic: false, underline: false };

// CSI sequences (ESC [ params final), OSC sequences (ESC ] ... BEL or ESC \), other two-byte escapes, and
// C0 control characters other than tab.
// eslint-disable-next-line no-control-regex
const ESCAPE = /\x1b\[([0-9;:?]*)([\x20-\x2f]*)([\x40-\x7e])|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?|\x1b[\x20-\x2f]*[\x30-\x7e]?|[\x00-\x08\x0b-\x1f\x7f]/g;

/** The 6×6×6 cube and grey ramp of the 256-colour palette (0–15 use the classes). */
function paletteColor(n: number): string {
  if (n < 232) {
    const steps = [0, 95, 135, 175, 215, 255];
    const i = n - 16;
    return `rgb(${steps[Math.floor(i / 36)]},${steps[Math.floor(i / 6) % 6]},${steps[i % 6]})`;
  }
  const grey = 8 + (n - 232) * 10;
  return `rgb(${grey},${grey},${grey})`;
}

/** Applies one SGR parameter list to a style; returns the new style. */
function applySgr(style: Style, params: string): Style {
  const codes = params === '' ? [0] : params.split(/[;:]/).map((part) => (part === '' ? 0 : Number(part)));
  const next = { ...style };
  for (let i = 0; i < codes.length; i += 1) {
    const code = codes[i] ?? 0;
    if (code === 0) Object.assign(next, PLAIN);
    else if (code === 1) next.bold = true;
    else if (code === 2) next.dim = true;
    else if (code === 3) next.italic = true;
    else if (code === 4) next.underline = true;
    else if (code === 22) next.bold = next.dim = false;
    else if (code === 23) next.italic = false;
    else if (code === 24) next.underline = false;
    else if (code >= 30 && code <= 37) [next.fg, next.fgColor] = [String(code - 30), null];
    else if (code >= 90 && code <= 97) [next.fg, next.fgColor] = [String(code - 90 + 8), null];
    else if (code === 39) [next.fg, next.fgColor] = [null, null];
    else if (code >= 40 && code <= 47) [next.bg, next.bgColor] = [String(code - 40), null];
    else if (code >= 100 && code <= 107) [next.bg, next.bgColor] = [String(code - 100 + 8), null];
    else if (code === 49) [next.bg, next.bgColor] = [null, null];
    else if (code === 38 || code === 48) {
      const mode = codes[i + 1];
      let color: string | null = null;
      let palette: string | null = null;
      if (mode === 5) {
        const n = codes[i + 2] ?? 0;
        if (n < 16) palette = String(n);
        else if (n < 256) color = paletteColor(n);
        i += 2;
      } else if (mode === 2) {
        const [r = 0, g = 0, b = 0] = codes.slice(i + 2, i + 5);
        color = `rgb(${Math.min(r, 255)},${Math.min(g, 255)},${Math.min(b, 255)})`;
        i += 4;
      }
      if (code === 38) [next.fg, next.fgColor] = [palette, color];
      else [next.bg, next.bgColor] = [palette, color];
    }
  }
  return next;
}

function classesOf(style: Style): string {
  const classes: string[] = [];
  if (style.fg !== null) classes.push(`ansi-fg-${style.fg}`);
  if (style.bg !== null) classes.push(`ansi-bg-${style.bg}`);
  if (style.bold) classes.push('ansi-bold');
  if (style.dim) classes.push('ansi-dim');
  if (style.italic) classes.push('ansi-italic');
  if (style.underline) classes.push('ansi-underline');
  return classes.join(' ');
}

function styleOf(style: Style): string {
  return (style.fgColor !== null ? `color:${style.fgColor};` : '') + (style.bgColor !== null ? `background-color:${style.bgColor};` : '');
}

/**
 * A progress line rewritten with carriage returns shows what a terminal ends with: the last segment
 * (a CRLF's CR is only the line end).
 */
export function lastCarriageSegment(line: string): string {
  const trimmed = line.endsWith('\r') ? line.replace(/\r+$/, '') : line;
  const at = trimmed.lastIndexOf('\r');
  return at === -1 ? trimmed : trimmed.slice(at + 1);
}

/** One line's styled segments. Each line starts plain: a viewer that jumps into a log cannot know the styles set above. */
export function parseAnsiLine(raw: string): Segment[] {
  const line = lastCarriageSegment(raw);
  const segments: Segment[] = [];
  let style = PLAIN;
  let at = 0;
  const push = (text: string) => {
    if (text === '') return;
    const classes = classesOf(style);
    const css = styleOf(style);
    const last = segments[segments.length - 1];
    if (last !== undefined && last.classes === classes && last.style === css) last.text += text;
    else segments.push({ text, classes, style: css });
  };
  ESCAPE.lastIndex = 0;
  for (let match = ESCAPE.exec(line); match !== null; match = ESCAPE.exec(line)) {
    push(line.slice(at, match.index));
    at = match.index + match[0].length;
    if (match[3] === 'm' && match[2] === '' && !(match[1] ?? '').startsWith('?')) style = applySgr(style, match[1] ?? '');
  }
  push(line.slice(at));
  return segments;
}
