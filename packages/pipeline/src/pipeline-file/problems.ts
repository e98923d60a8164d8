import { MAX_PROBLEMS } from './limits.js';
import type { Problem } from './types.js';

/** Collects problems in the order they are found. Keeps the first MAX_PROBLEMS and counts the rest. */
export class ProblemList {
  private readonly kept: Problem[] = [];
  private dropped = 0;

  add(path: string, message: string): void {
    if (this.kept.length < MAX_PROBLEMS) this.kept.push({ path, message });
    else this.dropped += 1;
  }

  get isEmpty(): boolean {
    return this.kept.length === 0;
  }

  toArray(): Problem[] {
    if (this.dropped === 0) return [...this.kept];
    return [...this.kept, { path: '', message: `${this.dropped} more problems not shown` }];
  }
}

/** `tasks` + `lint` gives `tasks.lint`; the root's children have no leading dot. */
export function joinPath(parent: string, key: string): string {
  const shown = shortenKey(key);
  return parent === '' ? shown : `${parent}.${shown}`;
}

/**
 * Cuts a very long key for paths and messages: every problem inside a task repeats its name, and a
 * hostile file could otherwise multiply a long name into an enormous answer.
 */
export function shortenKey(key: string): string {
  return key.length <= 80 ? key : `${key.slice(0, 60)}…`;
}

export function indexPath(parent: string, index: number): string {
  return `${parent}[${index}]`;
}
