import type { MatrixAxis } from './read-matrix.js';
import { putEntry } from './records.js';

/** How many variants the axes give: the product of their lengths (1 for no matrix). */
export function countVariants(axes: readonly MatrixAxis[]): number {
  return axes.reduce((product, axis) => product * axis.values.length, 1);
}

/** The cartesian product, first key varying slowest, so variants come in the order the file lists values. */
export function expandMatrix(axes: readonly MatrixAxis[]): Record<string, string>[] {
  let variants: Record<string, string>[] = [{}];
  for (const axis of axes) {
    const next: Record<string, string>[] = [];
    for (const variant of variants) {
      for (const value of axis.values) {
        const extended = { ...variant };
        putEntry(extended, axis.key, value);
        next.push(extended);
      }
    }
    variants = next;
  }
  return variants;
}

/** `<base>` without a matrix, otherwise `<base>:<k>=<v>,<k>=<v>` in the declared key order. */
export function nameVariant(baseName: string, matrix: Record<string, string>): string {
  const pairs = Object.entries(matrix).map(([key, value]) => `${key}=${value}`);
  return pairs.length === 0 ? baseName : `${baseName}:${pairs.join(',')}`;
}
