import { Composer, Lexer, LineCounter, Parser } from 'yaml';
import type { CST, Document, ParsedNode } from 'yaml';
import { MAX_ALIAS_COUNT, MAX_EXPANDED_VALUES, MAX_YAML_NESTING } from './limits.js';
import { inspectNodes } from './inspect-nodes.js';
import { ProblemList } from './problems.js';
import type { Problem } from './types.js';
import { MAX_PIPELINE_FILE_BYTES } from './types.js';

export type ParseResult = { ok: true; value: unknown } | { ok: false; problems: Problem[] };

/** A finding of the YAML layer, placed by its offset in the source so findings can be listed in file order. */
interface YamlFinding {
  offset: number;
  message: string;
}

// YAML 1.2 core schema whatever `%YAML` directive the file carries; keys are read as strings so `1:` and
// `"1":` are the same key. Duplicate keys are found by inspectNodes (the library's check is quadratic).
const COMPOSE_OPTIONS = {
  schema: 'core',
  version: '1.2',
  stringKeys: true,
  uniqueKeys: false,
  resolveKnownTags: false,
  prettyErrors: false,
  strict: true,
} as const;

/** Refuses an oversized file before any parsing. Measured in UTF-8 bytes, as stored in the repository. */
export function checkFileSize(source: string): Problem | undefined {
  // A UTF-16 code unit never encodes to fewer than one UTF-8 byte, so a long string is refused without encoding it.
  const bytes = source.length > MAX_PIPELINE_FILE_BYTES ? source.length : Buffer.byteLength(source, 'utf8');
  if (bytes <= MAX_PIPELINE_FILE_BYTES) return undefined;
  return { path: '', message: `the file is larger than ${MAX_PIPELINE_FILE_BYTES} bytes (1 MiB)` };
}

/** Parses one YAML document into plain values (maps become `Map`s with string keys), or says why it cannot. */
export function parseYaml(source: string): ParseResult {
  const lineCounter = new LineCounter();
  const tokens = readTokens(source, lineCounter);
  if (!Array.isArray(tokens)) return refuse([placeFinding(tokens, 'YAML nesting too deep', lineCounter)]);

  const { doc, secondDocumentAt } = composeSingleDocument(tokens, source.length);
  const { duplicateKeys, expandedValues } = inspectNodes(doc);
  const findings = [
    ...doc.errors.map((error) => ({ offset: error.pos[0], message: error.message, kind: 'YAML syntax error' })),
    ...doc.warnings.map((warning) => ({ offset: warning.pos[0], message: warning.message, kind: 'unsupported YAML' })),
    ...duplicateKeys.map((finding) => ({ ...finding, kind: 'YAML syntax error' })),
    ...(secondDocumentAt === undefined ? [] : [{
      offset: secondDocumentAt,
      message: 'the file must hold a single YAML document; another one starts here',
      kind: 'YAML syntax error',
    }]),
  ].sort((a, b) => a.offset - b.offset);
  if (findings.length > 0) {
    const problems = new ProblemList();
    for (const finding of findings) problems.add('', placeFinding(finding, finding.kind, lineCounter));
    return { ok: false, problems: problems.toArray() };
  }

  if (expandedValues > MAX_EXPANDED_VALUES) {
    const size = Number.isFinite(expandedValues) ? `${expandedValues} values` : 'an endless structure';
    return refuse([`aliases expand the file to ${size}; at most ${MAX_EXPANDED_VALUES} are allowed`]);
  }
  try {
    return { ok: true, value: doc.toJS({ mapAsMap: true, maxAliasCount: MAX_ALIAS_COUNT }) };
  } catch (error) {
    // toJS throws ReferenceError for an alias bomb and for an alias whose anchor comes later or never.
    if (error instanceof ReferenceError) return refuse([describeAliasError(error)]);
    throw error;
  }
}

/**
 * Lexes and parses to CST tokens, watching the parser's stack so that absurdly deep nesting is refused
 * after a few dozen tokens instead of costing seconds. Returns where it stopped when it refuses.
 */
function readTokens(source: string, lineCounter: LineCounter): CST.Token[] | YamlFinding {
  const parser = new Parser(lineCounter.addNewLine);
  const tokens: CST.Token[] = [];
  lineCounter.addNewLine(0);
  for (const lexeme of new Lexer().lex(source)) {
    for (const token of parser.next(lexeme)) tokens.push(token);
    if (parser.stack.length > MAX_YAML_NESTING) {
      return { offset: parser.offset, message: `more than ${MAX_YAML_NESTING} levels` };
    }
  }
  for (const token of parser.end()) tokens.push(token);
  return tokens;
}

interface Composed {
  doc: Document.Parsed<ParsedNode, true>;
  /** Where a second document starts, when the file holds more than one. */
  secondDocumentAt?: number;
}

function composeSingleDocument(tokens: CST.Token[], length: number): Composed {
  let first: Document.Parsed<ParsedNode, true> | undefined;
  for (const doc of new Composer(COMPOSE_OPTIONS).compose(tokens, true, length)) {
    if (first) return { doc: first, secondDocumentAt: doc.range[0] };
    first = doc;
  }
  // compose(…, forceDoc = true) always yields a document, even for an empty source.
  if (!first) throw new Error('yaml composed no document');
  return { doc: first };
}

function placeFinding(finding: YamlFinding, kind: string, lineCounter: LineCounter): string {
  const { line, col } = lineCounter.linePos(Math.max(0, finding.offset));
  return `${kind} at line ${line}, column ${col}: ${finding.message}`;
}

/** Reads back the position placeFinding wrote into a problem's message, for tools that list problems by line. */
export function readFindingPosition(message: string): { line: number; column: number } | undefined {
  const match = / at line (\d+), column (\d+): /.exec(message);
  return match ? { line: Number(match[1]), column: Number(match[2]) } : undefined;
}

/**
 * The document as the compiler parses it, with its line counter, for mapping problem paths back to
 * source positions. Undefined when the file does not parse cleanly (its problems carry positions already).
 */
export function parseWithPositions(source: string): { doc: Document.Parsed<ParsedNode, true>; lineCounter: LineCounter } | undefined {
  if (checkFileSize(source)) return undefined;
  const lineCounter = new LineCounter();
  const tokens = readTokens(source, lineCounter);
  if (!Array.isArray(tokens)) return undefined;
  return { doc: composeSingleDocument(tokens, source.length).doc, lineCounter };
}

function describeAliasError(error: ReferenceError): string {
  if (error.message.startsWith('Excessive alias count')) {
    return `too many alias expansions (an anchor may be expanded at most ${MAX_ALIAS_COUNT} times, nested aliases multiply)`;
  }
  return `YAML alias error: ${error.message}`;
}

function refuse(messages: string[]): ParseResult {
  return { ok: false, problems: messages.map((message) => ({ path: '', message })) };
}
