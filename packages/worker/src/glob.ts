/**
 * Compiles an artifact pattern (`*`, `?`, `[...]`, `**` for any number of directories) into a
 * regular expression over `/`-separated relative paths. Returns null for a pattern that would
 * reach outside the working directory (absolute, or with a `..` component).
 */
export function compileGlob(pattern: string): RegExp | null {
  const normal = pattern.trim().replace(/\\/g, '/');
  if (normal === '' || normal.startsWith('/') || /^[a-zA-Z]:/.test(normal)) return null;
  const segments = normal.split('/').filter((segment) => segment !== '' && segment !== '.');
  if (segments.length === 0 || segments.includes('..')) return null;
  let source = '';
  segments.forEach((segment, index) => {
    const last = index === segments.length - 1;
    if (segment === '**') source += last ? '.*' : '(?:[^/]+/)*';
    else source += compileSegment(segment) + (last ? '' : '/');
  });
  return new RegExp(`^${source}$`);
}

function compileSegment(segment: string): string {
  let out = '';
  for (let i = 0; i < segment.length; i++) {
    const char = segment[i]!;
    if (char === '*') {
      out += '[^/]*';
    } else if (char === '?') {
      out += '[^/]';
    } else if (char === '[') {
      const close = segment.indexOf(']', i + 2);
      if (close === -1) {
        out += '\\[';
      } else {
        const body = segment.slice(i + 1, close).replace(/^!/, '^').replace(/\\/g, '\\\\');
        out += `[${body}]`;
        i = close;
      }
    } else {
      out += char.replace(/[.+^${}()|\\\]]/g, '\\$&');
    }
  }
  return out;
}
