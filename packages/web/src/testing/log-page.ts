// Test support for the task log page: where its rows are, and whether one is inside the log's viewport.
import type { Locator, Page } from 'playwright-core';

/** The address of a task's log page. */
export function taskPageUrl(baseUrl: string, project: string, job: string, task: string, extra = ''): string {
  return `${baseUrl}/projects/${project}/jobs/${job}/tasks/${task}${extra}`;
}

/** The row whose text is exactly `text` (the number column aside). */
export function logRow(page: Page, text: string | RegExp): Locator {
  const pattern = typeof text === 'string' ? new RegExp(`^${text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`) : text;
  return page.locator('.log-row').filter({ has: page.locator('.log-text', { hasText: pattern }) });
}

/** True when the element is fully inside the log's scrolling viewport (rows above and below it are in the page but clipped). */
export async function isInLogView(page: Page, locator: Locator): Promise<boolean> {
  const [box, view] = await Promise.all([locator.boundingBox(), page.locator('.log-scroller').boundingBox()]);
  return box !== null && view !== null && box.y >= view.y - 1 && box.y + box.height <= view.y + view.height + 1;
}

/** The texts of the rows inside the viewport, top to bottom. */
export async function visibleLogLines(page: Page): Promise<{ number: string; text: string }[]> {
  return page.evaluate(() => {
    const view = document.querySelector('.log-scroller')!.getBoundingClientRect();
    return [...document.querySelectorAll('.log-row')]
      .map((row) => ({ row, box: row.getBoundingClientRect() }))
      .filter(({ box }) => box.top >= view.top - 1 && box.bottom <= view.bottom + 1)
      .sort((a, b) => a.box.top - b.box.top)
      .map(({ row }) => ({ number: row.querySelector('.ln')?.textContent ?? '', text: row.querySelector('.log-text')?.textContent ?? '' }));
  });
}
