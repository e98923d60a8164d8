import { request as httpRequest } from 'node:http';

export interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  json(): Record<string, unknown>;
}

/** One request with exactly the headers given (Host included: fetch would not let a test set it). */
export function send(base: string, method: string, path: string, headers: Record<string, string> = {}, body?: string | Buffer): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const outgoing = httpRequest(`${base}${path}`, { method, headers, agent: false }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        resolve({ status: response.statusCode ?? 0, headers: response.headers, text, json: () => JSON.parse(text) as Record<string, unknown> });
      });
    });
    outgoing.on('error', reject);
    outgoing.end(body);
  });
}

/** The `name=value` of a session cookie from a response's Set-Cookie headers. */
export function sessionCookie(answer: Answer, name: string): string {
  const cookies = answer.headers['set-cookie'] ?? [];
  const found = (Array.isArray(cookies) ? cookies : [cookies]).find((cookie) => cookie.startsWith(`${name}=`));
  if (found === undefined) throw new Error(`no ${name} cookie in ${answer.status} ${answer.text}`);
  return found.split(';')[0] ?? '';
}
