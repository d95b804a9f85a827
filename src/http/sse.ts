import type { StreamWriter } from './graphql.ts';
import { framedOnce, HEARTBEAT_MS, pipeResults, writeHead } from './stream-room.ts';

/** A comment line every 12 s keeps a quiet stream open through proxies (graphql-sse's and graphql-ws' interval). */
const HEARTBEAT = ':\n\n';
const next = (value: unknown) => `event: next\ndata: ${JSON.stringify(value)}\n\n`;
const COMPLETE = 'event: complete\ndata:\n\n';
const nextOnce = framedOnce(next);

/**
 * GraphQL over SSE, distinct-connections mode (`Accept: text/event-stream`), as graphql-sse's client
 * and Hive Gateway (to a subgraph) read it: one event stream per operation, each result a `next`
 * event, then `complete`; a refusal (or a query's one result) is one `next` and `complete`. The
 * operation ran on the one path (graphql.ts) before a byte is written here: this only frames it.
 */
export function sseStream(heartbeatMs = HEARTBEAT_MS): StreamWriter {
  return async (res, outcome) => {
    writeHead(res, 'answer' in outcome ? outcome.headers : undefined, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache', 'content-encoding': 'none' });
    res.write(HEARTBEAT);
    if ('answer' in outcome) {
      res.end(`${next(outcome.answer)}${COMPLETE}`);
      return;
    }
    await pipeResults(res, outcome.results, { frame: nextOnce, heartbeat: HEARTBEAT, end: COMPLETE, heartbeatMs });
  };
}
