// `${key}` in an image names a matrix key of the task. The body excludes `$`, `{` and `}` so that a
// long run of unclosed `${` is scanned once, not once per opening.
const REFERENCE = /\$\{([^${}]*)\}/g;

/** The `${…}` names in `template` that are not keys of the matrix, each once, in order. */
export function findUnknownReferences(template: string, keys: ReadonlySet<string>): string[] {
  const unknown = new Set<string>();
  for (const match of template.matchAll(REFERENCE)) {
    const key = match[1] ?? '';
    if (!keys.has(key)) unknown.add(key);
  }
  return [...unknown];
}

/** Replaces every `${key}` with the variant's value; call only after findUnknownReferences found none. */
export function substituteMatrix(template: string, matrix: Record<string, string>): string {
  if (!template.includes('${')) return template;
  return template.replace(REFERENCE, (whole, key: string) => (Object.hasOwn(matrix, key) ? (matrix[key] ?? whole) : whole));
}
