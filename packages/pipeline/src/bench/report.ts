import { mkdir, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';

export interface ReportRow {
  metric: string;
  value: string;
  target: string;
  /** null when the row has no target. */
  met: boolean | null;
}

/** The figures as a plain fixed-width table. */
export function formatTable(rows: readonly ReportRow[]): string {
  const header: ReportRow = { metric: 'Metric', value: 'Measured', target: 'Target', met: null };
  const cells = [header, ...rows].map((row, index) => [
    row.metric,
    row.value,
    row.target,
    index === 0 ? 'Met?' : row.met === null ? '' : row.met ? 'yes' : 'NO (missed)',
  ]);
  const widths = [0, 1, 2, 3].map((column) => Math.max(...cells.map((cell) => (cell[column] as string).length)));
  const line = (cell: string[]): string => cell.map((text, column) => text.padEnd(widths[column] as number)).join('  ').trimEnd();
  const rule = widths.map((width) => '-'.repeat(width)).join('  ');
  return [line(cells[0] as string[]), rule, ...cells.slice(1).map(line)].join('\n');
}

export async function writeJson(path: string, value: unknown): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  await writeFile(path, `${JSON.stringify(value, null, 2)}\n`);
}
