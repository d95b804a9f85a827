import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { startProductionGateway, type ProductionGateway } from '../support/gateway-process.ts';

// Every fenced JavaScript or shell block of the README and of docs/ whose info string says `runnable`
// (` ```js runnable `, ` ```sh runnable `) runs as pasted, against a gateway started in production
// mode over its embedded sandbox, live: JavaScript as a module in this checkout (where its imports
// resolve, as in a folder where the package is installed), shell in bash with the ids the banner
// prints as variables. Each must print a GraphQL result with data and no error: a block that ends
// on its own must end with exit code 0; one that streams (curl -N) is stopped after its first event.

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const FILES = [join(ROOT, 'README.md'), ...readdirSync(join(ROOT, 'docs')).filter((name) => name.endsWith('.md')).map((name) => join(ROOT, 'docs', name))];
const NODE_BIN = join(ROOT, 'node_modules/.bin');

interface Snippet {
  where: string;
  language: 'js' | 'sh';
  code: string;
}

const SNIPPETS: Snippet[] = FILES.flatMap((file) => {
  const text = readFileSync(file, 'utf8');
  return [...text.matchAll(/^```(js|javascript|sh|bash) runnable\n([\s\S]*?)^```$/gm)].map((match) => ({
    where: `${relative(ROOT, file)}:${text.slice(0, match.index).split('\n').length}`,
    language: match[1] === 'js' || match[1] === 'javascript' ? 'js' as const : 'sh' as const,
    code: match[2]!,
  }));
});

let gateway: ProductionGateway;
let variables: Record<string, string>;

beforeAll(async () => {
  // Live records every 300 ms and polls every 250 ms (the floor), so that each subscription sees a change soon.
  gateway = await startProductionGateway({ SANDBOX_LIVE: 'true', SANDBOX_LIVE_INTERVAL_MS: '300', SUBSCRIPTION_POLL_MS: '250' });
  await gateway.process.waitFor(/DOCUMENT_MALICIOUS=\S+/, 10_000);
  variables = Object.fromEntries([...gateway.process.stdout().matchAll(/^ {2}([A-Z_]+)=(\S+)/gm)].map((m) => [m[1]!, m[2]!]));
}, 60_000);

afterAll(async () => {
  await gateway?.process.stop();
});

/** The GraphQL results a snippet printed: JSON objects on a line of their own or after `data: ` (SSE). */
function resultsIn(output: string): { data?: unknown; errors?: unknown; payload?: { data?: unknown; errors?: unknown } }[] {
  return output.split('\n').flatMap((line) => {
    const json = line.startsWith('data: ') ? line.slice('data: '.length) : line;
    try {
      const value = JSON.parse(json) as unknown;
      return typeof value === 'object' && value !== null ? [value as never] : [];
    } catch {
      return [];
    }
  });
}

function run(snippet: Snippet): Promise<{ code: number | null; stopped: boolean; stdout: string; stderr: string }> {
  const env = { PATH: `${NODE_BIN}:${process.env.PATH ?? ''}`, HOME: process.env.HOME ?? '', PORT: new URL(gateway.origin).port, ...variables };
  const child = snippet.language === 'js'
    ? spawn(join(NODE_BIN, 'node'), ['--input-type=module'], { cwd: ROOT, env, stdio: ['pipe', 'pipe', 'pipe'] })
    : spawn('bash', ['-c', snippet.code], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  if (snippet.language === 'js') child.stdin!.end(snippet.code);
  let stdout = '';
  let stderr = '';
  let stopped = false;
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
    stdout += chunk;
    // A stream's first event: enough to judge it by.
    if (snippet.language === 'sh' && !stopped && resultsIn(stdout).length > 0) {
      stopped = true;
      process.kill(-child.pid!, 'SIGTERM');
    }
  });
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  return new Promise((resolve) => child.once('close', (code) => resolve({ code, stopped, stdout, stderr })));
}

describe('runnable snippets', () => {
  it('are there: the README\'s query and subscription, a client of each transport', () => {
    expect(SNIPPETS.map((snippet) => snippet.where.split(':')[0])).toEqual([
      'README.md', 'README.md',
      'docs/subscription-clients.md', 'docs/subscription-clients.md', 'docs/subscription-clients.md', 'docs/subscription-clients.md',
    ]);
  });

  it.each(SNIPPETS.map((snippet) => [snippet.where, snippet] as const))('%s runs as pasted and prints data, no error', async (_where, snippet) => {
    const { code, stopped, stdout, stderr } = await run(snippet);
    const results = resultsIn(stdout).map((result) => result.payload ?? result);
    expect({ ended: stopped || code === 0, stderr, errors: results.map((result) => result.errors) }).toEqual({ ended: true, stderr: '', errors: results.map(() => undefined) });
    expect(results.length).toBeGreaterThan(0);
    expect(results.every((result) => typeof result.data === 'object' && result.data !== null && Object.values(result.data).every((value) => value !== null))).toBe(true);
  }, 60_000);
});
