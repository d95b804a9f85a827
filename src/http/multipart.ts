import type { StreamWriter } from './graphql.ts';
import { framedOnce, HEARTBEAT_MS, pipeResults, writeHead } from './stream-room.ts';

/** Apollo's boundary: its clients look for `boundary="graphql"` in the Content-Type. */
const BOUNDARY = 'graphql';
// Each part is followed by the boundary at once, so that a client hands it on without waiting for the next part.
const part = (value: unknown) => `\r\nContent-Type: application/json; charset=utf-8\r\n\r\n${JSON.stringify(value)}\r\n--${BOUNDARY}`;
const CLOSE = '--\r\n';
const payloadOnce = framedOnce((value) => part({ payload: value }));

/**
 * Apollo's multipart HTTP subscriptions (`Accept: multipart/mixed;subscriptionSpec="1.0"`), as
 * Apollo Client's HttpLink reads them: each result a part `{"payload": …}`, a heartbeat `{}` every
 * 12 s, a refusal `{"payload": null, "errors": […]}`, and the closing boundary when the
 * subscription ends (its last event, the client leaving, or the gateway stopping). The operation ran
 * on the one path (graphql.ts) before a byte is written here: this only frames it.
 */
export function multipartStream(heartbeatMs = HEARTBEAT_MS): StreamWriter {
  return async (res, outcome) => {
    writeHead(res, 'answer' in outcome ? outcome.headers : undefined, { 'content-type': `multipart/mixed; boundary="${BOUNDARY}"; subscriptionSpec="1.0"`, 'cache-control': 'no-cache' });
    res.write(`\r\n--${BOUNDARY}`);
    if ('answer' in outcome) {
      const { answer } = outcome;
      res.end(`${part('data' in answer ? { payload: answer } : { payload: null, errors: answer.errors ?? [] })}${CLOSE}`);
      return;
    }
    await pipeResults(res, outcome.results, { frame: payloadOnce, heartbeat: part({}), end: CLOSE, heartbeatMs });
  };
}
