import type { IncomingMessage } from 'node:http';
import type { Stage } from './stage.ts';
import { multipartTransport } from './multipart.ts';
import { sseTransport } from './sse.ts';
import type { SubscribePath, SubscribeRequest } from './subscribe.ts';

type WithBody = IncomingMessage & { body?: unknown };

/** The GraphQL request of a POST (its body, read by the body stage) or a GET (its parameters). */
function requestOf(req: IncomingMessage): SubscribeRequest | undefined {
  if (req.method === 'POST') {
    const body = (req as WithBody).body;
    return typeof body === 'object' && body !== null && !Array.isArray(body) ? (body as SubscribeRequest) : undefined;
  }
  if (req.method !== 'GET') return undefined;
  const params = new URL(req.url ?? '/', 'http://gateway').searchParams;
  const parsed = (name: string) => {
    const text = params.get(name);
    if (text === null) return undefined;
    try {
      return JSON.parse(text) as unknown;
    } catch {
      return text;
    }
  };
  return { query: params.get('query') ?? undefined, operationName: params.get('operationName') ?? undefined, variables: parsed('variables'), extensions: parsed('extensions') };
}

/**
 * The streaming transports of /graphql, just before Apollo Server: a subscription asked for as an
 * event stream (SSE) or as multipart parts (Apollo) runs here; anything else (every query and
 * mutation, which never asks for these) goes on to Apollo Server unchanged. The stages before it
 * (CORS, admission, body, trusted documents) have run, as for a query.
 */
export function subscriptionsStage(path: SubscribePath): Stage {
  const sse = sseTransport(path);
  const multipart = multipartTransport(path);
  return (req, res, next) => {
    const accept = req.headers.accept;
    if (accept === undefined) return next();
    const transport = accept.includes('text/event-stream') ? sse : accept.includes('multipart/mixed') && accept.includes('subscriptionSpec') ? multipart : undefined;
    if (transport === undefined) return next();
    const request = requestOf(req);
    if (request === undefined || !path.isSubscription(request)) return next();
    transport(req, res, request).catch(next);
  };
}
