import { pipelineOpenApiDocument } from '@conveyor/pipeline';
import { signinOpenApiDocument } from '@conveyor/signin';

// Renders docs/api.md from the OpenAPI documents the services serve, so the page never drifts from
// them (`npm run docs:api` writes it; a test compares).

type Document = typeof pipelineOpenApiDocument;
type Schema = Document['components']['schemas'][string];
type Operation = NonNullable<Document['paths'][string]['get']>;
type Response = Operation['responses'][string];

const METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;

const cell = (text: string): string => text.replace(/\|/g, '\\|').replace(/\n/g, ' ');
const refName = (ref: string): string => ref.slice(ref.lastIndexOf('/') + 1);

/** A schema as a short type: `Job`, `array of Task`, `string or null`, `{ error: invalid_request, message: string }`. */
function typeOf(schema: Schema): string {
  if (schema.$ref !== undefined) return `\`${refName(schema.$ref)}\``;
  if (schema.oneOf !== undefined) return schema.oneOf.map(typeOf).join(' or ');
  if (schema.const !== undefined) return `\`${JSON.stringify(schema.const)}\``;
  if (schema.enum !== undefined) return schema.enum.map((value) => `\`${String(value)}\``).join(', ');
  if (schema.type === 'array') return `array of ${schema.items === undefined ? 'any' : typeOf(schema.items)}`;
  if (schema.type === 'object' && schema.properties !== undefined) {
    const fields = Object.entries(schema.properties).map(([name, field]) => `${name}: ${typeOf(field)}`);
    return `{ ${fields.join(', ')} }`;
  }
  if (schema.type === 'object' && typeof schema.additionalProperties === 'object') return `object of ${typeOf(schema.additionalProperties)}`;
  if (Array.isArray(schema.type)) return schema.type.join(' or ');
  return schema.type ?? 'any';
}

function fieldTable(schema: Schema): string[] {
  if (schema.properties === undefined) return schema.description === undefined ? [] : [schema.description, ''];
  const required = new Set(schema.required ?? []);
  const lines = ['| Field | Type | Required | Notes |', '| --- | --- | --- | --- |'];
  for (const [name, field] of Object.entries(schema.properties)) {
    const notes = [field.description, field.pattern === undefined ? undefined : `pattern \`${field.pattern}\``, field.default === undefined ? undefined : `default \`${JSON.stringify(field.default)}\``]
      .filter((note) => note !== undefined)
      .join('; ');
    lines.push(`| \`${name}\` | ${cell(typeOf(field))} | ${required.has(name) ? 'yes' : 'no'} | ${cell(notes)} |`);
  }
  return schema.description === undefined ? [...lines, ''] : [schema.description, '', ...lines, ''];
}

/** The fields of a request body, through its reference (or each alternative of a oneOf). */
function bodyFields(document: Document, schema: Schema): string[] {
  const resolve = (candidate: Schema): Schema =>
    candidate.$ref === undefined ? candidate : (document.components.schemas[refName(candidate.$ref)] ?? candidate);
  if (schema.oneOf === undefined) return resolve(schema).properties === undefined ? [] : fieldTable({ ...resolve(schema), description: undefined });
  return schema.oneOf.flatMap((alternative) => [`${typeOf(alternative)}:`, '', ...fieldTable(resolve(alternative))]);
}

function describeSecurity(document: Document, operation: Operation): string {
  const names = operation.security.map((alternative) => {
    const [scheme] = Object.keys(alternative);
    if (scheme === undefined) return 'none (public)';
    const definition = document.components.securitySchemes[scheme];
    if (definition?.type === 'http') return `\`Authorization: Bearer\` (${scheme})`;
    return `${definition?.in ?? ''} \`${definition?.name ?? scheme}\` (${scheme})`;
  });
  return names.join(', or ');
}

function describeBody(response: Response): string {
  const [mediaType, media] = Object.entries(response.content ?? {})[0] ?? [];
  return media === undefined ? 'no body' : mediaType === 'application/json' ? typeOf(media.schema) : `\`${mediaType}\``;
}

/** The meaning, then each response header with what it carries. */
function describeMeaning(response: Response): string {
  const headers = Object.entries(response.headers ?? {}).map(([name, header]) => `\`${name}\`: ${header.description}`);
  return [response.description, ...headers].join('. ');
}

function renderOperation(document: Document, method: string, path: string, operation: Operation): string[] {
  const lines = [`### ${method.toUpperCase()} \`${path}\``, '', operation.summary + '.', ''];
  if (operation.description !== undefined) lines.push(operation.description, '');
  lines.push(`**Authentication:** ${describeSecurity(document, operation)}.`, '');
  if (operation.parameters !== undefined && operation.parameters.length > 0) {
    lines.push('| Parameter | In | Required | Notes |', '| --- | --- | --- | --- |');
    for (const parameter of operation.parameters) {
      lines.push(`| \`${parameter.name}\` | ${parameter.in} | ${parameter.required === true ? 'yes' : 'no'} | ${cell(parameter.description)} |`);
    }
    lines.push('');
  }
  if (operation.requestBody !== undefined) {
    const [mediaType, media] = Object.entries(operation.requestBody.content)[0] ?? [];
    const required = operation.requestBody.required === true ? 'required' : 'optional';
    lines.push(`**Request body** (\`${mediaType ?? ''}\`, ${required}): ${operation.requestBody.description}${media === undefined ? '' : `, ${typeOf(media.schema)}`}.`, '');
    if (media !== undefined) lines.push(...bodyFields(document, media.schema));
  }
  lines.push('| Status | Body | Meaning |', '| --- | --- | --- |');
  for (const [status, response] of Object.entries(operation.responses)) {
    lines.push(`| ${status} | ${cell(describeBody(response))} | ${cell(describeMeaning(response))} |`);
  }
  return [...lines, ''];
}

function renderService(document: Document): string[] {
  const lines = [`## ${document.info.title}`, '', document.info.description, ''];
  lines.push('| Method | Path | What | Authentication |', '| --- | --- | --- | --- |');
  for (const [path, item] of Object.entries(document.paths)) {
    for (const method of METHODS) {
      const operation = item[method];
      if (operation !== undefined) lines.push(`| ${method.toUpperCase()} | \`${path}\` | ${cell(operation.summary)} | ${cell(describeSecurity(document, operation))} |`);
    }
  }
  for (const catchAll of document['x-catch-all'] ?? []) lines.push(`| any | \`${catchAll.path}\` | ${cell(catchAll.description)} | |`);
  lines.push('', '**Authentication schemes**', '');
  for (const [name, scheme] of Object.entries(document.components.securitySchemes)) {
    const where = scheme.type === 'http' ? `\`Authorization: Bearer <token>\`` : `${scheme.in ?? ''} \`${scheme.name ?? ''}\``;
    lines.push(`- \`${name}\`: ${where}. ${scheme.description}.`);
  }
  lines.push('');
  for (const [path, item] of Object.entries(document.paths)) {
    for (const method of METHODS) {
      const operation = item[method];
      if (operation !== undefined) lines.push(...renderOperation(document, method, path, operation));
    }
  }
  lines.push(`### Bodies of the ${document.info.title}`, '');
  for (const [name, schema] of Object.entries(document.components.schemas)) lines.push(`#### \`${name}\``, '', ...fieldTable(schema));
  return lines;
}

/** The whole of docs/api.md. */
export function renderApiDocs(): string {
  const lines = [
    '# HTTP API',
    '',
    '<!-- Generated by `npm run docs:api` from the OpenAPI documents in packages/pipeline/src/http/openapi and',
    '     packages/signin/src/http/openapi. Do not edit by hand: a test fails when this page is out of date. -->',
    '',
    'Each service serves its OpenAPI 3.1 document at `GET /api/v1/openapi.json` (public). This page renders',
    'both. Any request whose body takes longer than the request timeout to arrive is answered 408 and',
    'its connection closed (artifact uploads are bound by a minimum rate instead; see pipeline-service.md).',
    '',
    ...renderService(pipelineOpenApiDocument),
    ...renderService(signinOpenApiDocument),
  ];
  return `${lines.join('\n').replace(/\n+$/, '')}\n`;
}
