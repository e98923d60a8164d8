import { describeError, type ApiError } from '../../api/client';

export type ProjectField = 'name' | 'repo';

/**
 * A refusal of a project's creation or change, in words a person acts on, and the field it is about.
 * The service's sentences name regular expressions; these say the same rule plainly.
 */
export function explainProjectError(error: ApiError): { field: ProjectField | null; text: string } {
  const message = error.message;
  if (error.status === 409) return { field: 'name', text: `${describeError(error)} Choose another name.` };
  if (/^project name .* must match/.test(message)) {
    return {
      field: 'name',
      text: 'The name may hold only lower-case letters (a-z), digits and dashes, must start with a letter or digit, and is at most 63 characters.',
    };
  }
  if (/\brepo\b|repository|location|url/i.test(message)) return { field: 'repo', text: describeError(error) };
  if (/\bname\b/i.test(message)) return { field: 'name', text: describeError(error) };
  return { field: null, text: describeError(error) };
}
