import type { z } from 'zod';

export type Parsed<T> = { ok: true; value: T } | { ok: false; message: string };

/** Validates `input` against `schema` and renders every problem as one readable line. */
export function parseWith<T>(schema: z.ZodType<T>, input: unknown): Parsed<T> {
  const result = schema.safeParse(input);
  if (result.success) return { ok: true, value: result.data };
  const message = result.error.issues
    .map((issue) => (issue.path.length > 0 ? `${issue.path.join('.')}: ${issue.message}` : issue.message))
    .join('; ');
  return { ok: false, message };
}
