import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { connect, type Socket } from 'node:net';
import { startSandbox, type Sandbox } from '../../sandbox/index.ts';
import { startProductionGateway, type ProductionGateway } from '../support/gateway-process.ts';
import { sleep, until } from '../support/time.ts';

// SUBSCRIPTION_BUFFER_BYTES on the real process: one byte budget (here its least, 1 MiB) over every
// subscriber's waiting events and stream buffer. Four SSE readers that never read their socket, each
// of its own document (the same selection, a different trailing comment), fill their sockets, then
// their write buffers and queues, while the sandbox's records change; two readers of the same token
// that read everything hold next to nothing. Past the budget the readers holding most are dropped,
// so all four stalled ones are, each told why, and neither of the two that keep up is; another
// token's query is answered, and the metric counts the four.

const TOKEN = 'demo-token-acme';
const OTHER_TOKEN = 'demo-token-globex';
const STALLED = 4;
const READING = 2;
/** Each exception's fields under 15 aliases (MAX_QUERY_ALIASES): about 10 kB an event, so that a socket's buffers fill in a few hundred events. */
const NODE_FIELDS = 'id category type status description assignedTo { id firstName lastName email } entity { __typename ... on FinancialAccount { id } } createdBy { id type } createdAt updatedAt';
const FEED = `subscription { exceptionsChanged { cursor node { ${NODE_FIELDS} } ${Array.from({ length: 15 }, (_, i) => `n${i}: node { ${NODE_FIELDS} }`).join(' ')} } }`;
const LIST = 'query { exceptions(first: 1) { edges { node { id } } } }';

let sandbox: Sandbox;
let gateway: ProductionGateway;

beforeAll(async () => {
  sandbox = await startSandbox();
  gateway = await startProductionGateway({ UPSTREAM_URL: sandbox.url, LOG_LEVEL: 'warn', SUBSCRIPTION_BUFFER_BYTES: '1048576', SUBSCRIPTION_POLL_MS: '250' });
}, 60_000);
afterAll(async () => {
  await gateway?.process.stop();
  await sandbox?.close();
});


/** One series of the admin listener's /metrics (name and labels as printed), 0 when absent. */
async function metric(series: string): Promise<number> {
  const text = await (await fetch(`${gateway.admin}/metrics`)).text();
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? 0 : Number(line.slice(series.length + 1));
}

/** An SSE subscription on a raw socket that is paused once its request is sent: it never reads. */
function stalledReader(document: string): Promise<Socket> {
  const port = Number(new URL(gateway.origin).port);
  const body = JSON.stringify({ query: document });
  return new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port }, () => {
      socket.write(`POST /graphql HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nAccept: text/event-stream\r\nAuthorization: Bearer ${TOKEN}\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`);
      socket.pause();
      resolve(socket);
    });
    socket.once('error', reject);
  });
}

/** Reads a stalled reader's stream at last, to its end (the chunked answer's last chunk). */
function readToEnd(socket: Socket): Promise<string> {
  return new Promise((resolve) => {
    let tail = '';
    socket.on('data', (chunk: Buffer) => {
      tail = (tail + chunk.toString('latin1')).slice(-8_000);
      if (tail.endsWith('\r\n0\r\n\r\n')) socket.end();
    });
    socket.once('close', () => resolve(tail));
    socket.resume();
  });
}

/** An SSE subscription read as fast as it comes: its events counted, its text kept from its first error on. */
function keptUpReader(document: string, signal: AbortSignal): { events: () => number; ended: Promise<string> } {
  let events = 0;
  const ended = (async () => {
    const response = await fetch(`${gateway.origin}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'text/event-stream', authorization: `Bearer ${TOKEN}` },
      body: JSON.stringify({ query: document }),
      signal,
    });
    const decoder = new TextDecoder();
    let errors = '';
    try {
      const reader = response.body!.getReader();
      for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) {
        const text = decoder.decode(chunk.value, { stream: true });
        events += text.split('event: next').length - 1;
        if (text.includes('"errors"') || text.includes('event: complete')) errors += text;
      }
    } catch {
      // Stopped by `signal`: the end of the test.
    }
    return errors;
  })();
  return { events: () => events, ended };
}

describe('SUBSCRIPTION_BUFFER_BYTES in the production process', () => {
  it('drops the stalled readers of distinct documents, holding most, and no reader that keeps up; another token\'s query answers; subscription_subscribers_dropped_total counts them', async () => {
    const stop = new AbortController();
    const reading = Array.from({ length: READING }, (_, n) => keptUpReader(`${FEED} # reading ${n}`, stop.signal));
    const stalled = await Promise.all(Array.from({ length: STALLED }, (_, n) => stalledReader(`${FEED} # stalled ${n}`)));
    const open = () => metric('subscriptions_open{transport="sse"}');
    await until(`${STALLED + READING} SSE subscriptions open`, async () => ((await open()) >= STALLED + READING ? true : undefined), 10_000);
    // The records change until every stalled reader is gone: at most 40 000 live steps (about 80 000 changes).
    let steps = 0;
    while ((await open()) > READING && steps < 40_000) {
      for (let i = 0; i < 100; i++) sandbox.live.step();
      steps += 100;
      await sleep(50);
    }
    const answer = await fetch(`${gateway.origin}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${OTHER_TOKEN}` },
      body: JSON.stringify({ query: LIST }),
    });
    const query = { status: answer.status, body: (await answer.json()) as { data?: { exceptions: { edges: unknown[] } }; errors?: unknown } };
    const figures = { open: await open(), dropped: await metric('subscription_subscribers_dropped_total') };
    const ends = await Promise.all(stalled.map((socket) => readToEnd(socket)));
    const eventsRead = reading.map((reader) => reader.events());
    stop.abort();
    const readingErrors = await Promise.all(reading.map((reader) => reader.ended));

    expect(figures).toEqual({ open: READING, dropped: STALLED });
    for (const tail of ends) {
      // The stream's last event (one write each, so whole within the answer's chunk) is the error, then the stream's end.
      const NEXT = 'event: next\ndata: ';
      const at = tail.lastIndexOf(NEXT) + NEXT.length;
      const last = tail.slice(at, tail.indexOf('\n', at));
      expect(tail.slice(tail.indexOf('\n', at))).toMatch(/^\n\n(\r\n[0-9a-f]+\r\n)?event: complete\ndata:/);
      expect(JSON.parse(last)).toEqual({
        data: null,
        errors: [{
          message: 'This gateway\'s subscribers hold more than the 1048576 bytes it allows, and this one, reading slowest, held most and was dropped; subscribe again with the last cursor received',
          locations: [{ line: 1, column: 16 }],
          path: ['exceptionsChanged'],
          extensions: { code: 'RATE_LIMITED', limit: 'SUBSCRIPTION_BUFFER_BYTES', requestId: expect.any(String) },
        }],
      });
    }
    // The readers that kept up read events all along and were never told of an error.
    expect(readingErrors).toEqual(['', '']);
    for (const events of eventsRead) expect(events).toBeGreaterThan(0);
    expect(query.status).toBe(200);
    expect(query.body.errors).toBeUndefined();
    expect(query.body.data?.exceptions.edges).toHaveLength(1);
  }, 180_000);
});
