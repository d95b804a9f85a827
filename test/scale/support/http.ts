import { request } from 'node:http';
import { withoutCost } from '../../support/graphql-client.ts';

export interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  /** The parsed body, without its cost (`withoutCost`); `text` is the body as sent. */
  json<T = { data?: Record<string, unknown> | null; errors?: { message: string; extensions?: Record<string, unknown> }[] }>(): T;
}

/**
 * One HTTP request on a connection of its own (no keep-alive pool), so that consecutive requests
 * reach a cluster's workers in turn, as separate clients' requests do.
 */
export function send(url: string, options: { method?: string; headers?: Record<string, string>; body?: unknown } = {}): Promise<Answer> {
  const body = options.body === undefined ? undefined : JSON.stringify(options.body);
  return new Promise((resolve, reject) => {
    const req = request(url, {
      method: options.method ?? (body === undefined ? 'GET' : 'POST'),
      agent: false,
      headers: { ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...options.headers },
    });
    req.once('error', reject);
    req.once('response', (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.once('error', reject);
      res.once('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json: () => withoutCost(JSON.parse(text)) as never }));
    });
    req.end(body);
  });
}

/** A GraphQL POST with a demo token of the sandbox; no `query` (undefined) sends only the extensions, as a persisted query does. */
export function graphql(origin: string, query: string | undefined, headers: Record<string, string> = {}, extensions?: Record<string, unknown>): Promise<Answer> {
  return send(`${origin}/graphql`, { headers: { authorization: 'Bearer demo-token-acme', ...headers }, body: { query, ...(extensions ? { extensions } : {}) } });
}

/** The JSON log lines printed so far (other output, such as the banner, is skipped). */
export function logLines(output: string): Record<string, unknown>[] {
  const lines: Record<string, unknown>[] = [];
  for (const line of output.split('\n')) {
    if (!line.startsWith('{')) continue;
    try {
      lines.push(JSON.parse(line) as Record<string, unknown>);
    } catch {
      // A line still being written.
    }
  }
  return lines;
}
