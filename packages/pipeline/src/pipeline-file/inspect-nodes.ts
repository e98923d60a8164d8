import { isAlias, isCollection, isMap, isNode, isScalar } from 'yaml';
import { shortenKey } from './problems.js';
import type { Document, Node, ParsedNode, YAMLMap } from 'yaml';

export interface NodeFinding {
  offset: number;
  message: string;
}

export interface Inspection {
  /** Keys repeated within one map; `1` and `"1"` are the same key since keys are read as strings. */
  duplicateKeys: NodeFinding[];
  /** Values (scalars and collections) the document holds once every alias is replaced by what it names. */
  expandedValues: number;
}

/**
 * Walks the document once, without expanding aliases: an anchored node's count is remembered and
 * reused by its aliases, and an alias inside the node it names (a recursive structure) counts as
 * endless. Duplicate keys are found here in linear time because the yaml library's own check compares
 * every key of a map with every other one (seconds for a map of 10,000 keys).
 */
export function inspectNodes(doc: Document.Parsed<ParsedNode, true>): Inspection {
  const anchors = new Map<string, Node>();
  const anchoredCounts = new Map<Node, number>();
  const duplicateKeys: NodeFinding[] = [];

  const count = (value: unknown): number => {
    if (isAlias(value)) {
      const target = anchors.get(value.source);
      // An unknown anchor is reported by toJS; here it is one value.
      if (!target) return 1;
      return anchoredCounts.get(target) ?? Number.POSITIVE_INFINITY;
    }
    if (!isNode(value)) return value == null ? 0 : 1;
    // An alias refers to the latest anchor of that name before it, so anchors are recorded in document order.
    if (value.anchor) anchors.set(value.anchor, value);
    let total = 1;
    if (isMap(value)) {
      findDuplicateKeys(value, duplicateKeys);
      for (const pair of value.items) total += count(pair.key) + count(pair.value);
    } else if (isCollection(value)) {
      for (const item of value.items) total += count(item);
    }
    if (value.anchor) anchoredCounts.set(value, total);
    return total;
  };
  const expandedValues = count(doc.contents);
  return { duplicateKeys: duplicateKeys.sort((a, b) => a.offset - b.offset), expandedValues };
}

function findDuplicateKeys(map: YAMLMap<unknown, unknown>, found: NodeFinding[]): void {
  const seen = new Set<string>();
  for (const pair of map.items) {
    if (!isScalar(pair.key)) continue;
    const key = String(pair.key.value);
    if (seen.has(key)) found.push({ offset: pair.key.range?.[0] ?? 0, message: `duplicate key "${shortenKey(key)}"` });
    seen.add(key);
  }
}
