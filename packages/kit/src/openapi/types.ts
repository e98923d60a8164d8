// The part of OpenAPI 3.1 the services' documents use, typed so a misspelt key fails the build.

export type Schema = {
  type?: 'object' | 'array' | 'string' | 'integer' | 'number' | 'boolean' | 'null' | Array<'object' | 'array' | 'string' | 'integer' | 'number' | 'boolean' | 'null'>;
  description?: string;
  properties?: Record<string, Schema>;
  required?: string[];
  additionalProperties?: boolean | Schema;
  items?: Schema;
  enum?: Array<string | number | boolean | null>;
  const?: string | number | boolean;
  pattern?: string;
  format?: string;
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  maxItems?: number;
  default?: unknown;
  oneOf?: Schema[];
  anyOf?: Schema[];
  examples?: unknown[];
  $ref?: string;
};

export interface Header {
  description: string;
  required?: boolean;
  schema: Schema;
}

export interface Parameter {
  name: string;
  in: 'path' | 'query' | 'header' | 'cookie';
  description: string;
  required?: boolean;
  schema: Schema;
}

export interface MediaType {
  schema: Schema;
}

export interface Response {
  description: string;
  headers?: Record<string, Header>;
  content?: Record<string, MediaType>;
}

export interface RequestBody {
  description: string;
  required?: boolean;
  content: Record<string, MediaType>;
}

export interface Operation {
  operationId: string;
  summary: string;
  description?: string;
  tags?: string[];
  /** Alternatives: any one entry satisfies it; `{}` means no authentication. */
  security: Array<Record<string, string[]>>;
  parameters?: Parameter[];
  requestBody?: RequestBody;
  responses: Record<string, Response>;
}

export type PathItem = Partial<Record<'get' | 'post' | 'put' | 'patch' | 'delete', Operation>>;

export interface SecurityScheme {
  type: 'apiKey' | 'http';
  description: string;
  name?: string;
  in?: 'header' | 'cookie' | 'query';
  scheme?: string;
}

/** A path below which every method and every further segment is answered the same way. */
export interface CatchAll {
  path: string;
  description: string;
}

export interface OpenApiDocument {
  openapi: '3.1.0';
  info: { title: string; version: string; description: string };
  tags?: Array<{ name: string; description: string }>;
  paths: Record<string, PathItem>;
  components: {
    schemas: Record<string, Schema>;
    securitySchemes: Record<string, SecurityScheme>;
  };
  /** Wildcard routes, which OpenAPI paths cannot express; checked against the app like the paths. */
  'x-catch-all'?: CatchAll[];
}
