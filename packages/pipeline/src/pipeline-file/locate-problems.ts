import { isAlias, isMap, isScalar, isSeq } from 'yaml';
import type { Document, Node, ParsedNode } from 'yaml';
import { parseWithPositions, readFindingPosition } from './parse-yaml.js';
import { shortenKey } from './problems.js';
import type { Problem } from './types.js';

/** A problem with the 1-based line and column of the key or item its path names. */
export interface LocatedProblem extends Problem {
  line: number;
  column: number;
}

type ParsedDoc = Document.Parsed<ParsedNode, true>;

/**
 * Places each of compilePipeline's problems in the source, for a linter. Pure, and separate from the
 * compiler so the service pays nothing for it. A path that leads to no node (a required key that is
 * missing, say) is placed at the deepest key it does reach: the task that lacks the key.
 */
export function locateProblems(source: string, problems: readonly Problem[]): LocatedProblem[] {
  // A YAML error leaves every problem at the root, with its position already in the message.
  const written = problems.map((problem) => (problem.path === '' ? readFindingPosition(problem.message) : undefined));
  const parsed = written.some((position) => position === undefined) ? parseWithPositions(source) : undefined;
  return problems.map((problem, index) => {
    const position = written[index];
    if (position) return { ...problem, ...position };
    if (!parsed) return { ...problem, line: 1, column: 1 };
    const { line, col } = parsed.lineCounter.linePos(findOffset(parsed.doc, problem.path));
    return { ...problem, line, column: col };
  });
}

/** The start of the node `path` names (`tasks.build.script[0]`), or of the deepest one it reaches. */
function findOffset(doc: ParsedDoc, path: string): number {
  let node: unknown = doc.contents;
  let offset = startOf(node) ?? 0;
  let rest = path;
  while (rest !== '') {
    if (isAlias(node)) node = node.resolve(doc);
    const step = isMap(node) ? stepIntoMap(node.items, rest) : isSeq(node) ? stepIntoSeq(node.items, rest) : undefined;
    if (!step) break;
    offset = step.offset ?? offset;
    node = step.node;
    rest = step.rest.replace(/^\./, '');
  }
  return offset;
}

interface Step {
  node: unknown;
  /** Where the key (for a map entry) or the item (for a list entry) starts. */
  offset: number | undefined;
  rest: string;
}

/** Matches the longest key that the path continues with: task names may contain dots. */
function stepIntoMap(pairs: readonly { key: unknown; value: unknown }[], rest: string): Step | undefined {
  let best: { key: string; pair: { key: unknown; value: unknown } } | undefined;
  for (const pair of pairs) {
    if (!isScalar(pair.key)) continue;
    const shown = shortenKey(String(pair.key.value));
    const next = rest.charAt(shown.length);
    if (rest.startsWith(shown) && (next === '' || next === '.' || next === '[') && shown.length > (best?.key.length ?? -1)) {
      best = { key: shown, pair };
    }
  }
  if (!best) return undefined;
  return { node: best.pair.value, offset: startOf(best.pair.key), rest: rest.slice(best.key.length) };
}

function stepIntoSeq(items: readonly unknown[], rest: string): Step | undefined {
  const match = /^\[(\d+)\]/.exec(rest);
  if (!match) return undefined;
  const item = items[Number(match[1])];
  if (item === undefined) return undefined;
  return { node: item, offset: startOf(item), rest: rest.slice(match[0].length) };
}

function startOf(node: unknown): number | undefined {
  return (node as Node | null | undefined)?.range?.[0];
}
