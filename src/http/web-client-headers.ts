import cors from 'cors';
import type { CorsConfig } from '../settings/config.ts';
import type { Stage } from './stage.ts';

/**
 * Headers a browser app may send: the token, the JSON content type, the
 * caller's request id, the two headers Apollo's CSRF prevention accepts
 * in place of a JSON content type, and Accept: the multipart subscription
 * spelling (`multipart/mixed;subscriptionSpec="1.0"`, Apollo Client's
 * HttpLink) holds a quote, which takes Accept off the safelist, so the
 * browser asks first.
 */
const ALLOWED_HEADERS = ['Authorization', 'Content-Type', 'X-Request-Id', 'Apollo-Require-Preflight', 'X-Apollo-Operation-Name', 'Accept'];

/** Development servers (Vite, webpack, Next) run on loopback on any port. */
const LOOPBACK_ORIGIN = /^http:\/\/(localhost|127\.0\.0\.1)(:\d{1,5})?$/;

/** Whether a browser page at `origin` may read the gateway's answers. */
export function originAllowed(config: CorsConfig, origin: string): boolean {
  return config.origins.includes(origin.toLowerCase()) || (config.allowLoopbackOrigins && LOOPBACK_ORIGIN.test(origin));
}

/**
 * Cross-origin access to the GraphQL endpoint, with the `cors` package, then `Cache-Control:
 * no-store`, as one stage. An allowed origin gets `Access-Control-Allow-Origin` echoed back (never
 * `*`, so credentials can be turned on safely); any other origin gets no `Access-Control-Allow-*`
 * header at all, and a preflight from it is answered 204 without them, so the browser refuses the
 * call. Apollo's CSRF prevention still applies behind this: CORS decides who may read, not who may
 * send.
 *
 * GraphQL answers carry account data: no browser or shared cache may keep them. `no-store` is set
 * before the GraphQL server writes its answer, so it covers every outcome (data, GraphQL errors,
 * refusals of the body); a preflight, which carries no data, is answered without it.
 */
export function webClientHeaders(config: CorsConfig): Stage {
  const middleware = cors({
    origin: (origin, callback) => callback(null, origin !== undefined && originAllowed(config, origin)),
    methods: ['GET', 'POST', 'OPTIONS'],
    allowedHeaders: ALLOWED_HEADERS,
    // A browser app may read its budget (src/budgets/) and when to retry.
    exposedHeaders: ['RateLimit', 'RateLimit-Policy', 'Retry-After'],
    credentials: config.credentials,
    maxAge: config.maxAgeSeconds,
    optionsSuccessStatus: 204,
  });
  const passOn: Stage = (req, res, next) => {
    // `cors` passes on a request from an origin it does not allow; a preflight ends here without allow headers.
    if (req.method === 'OPTIONS' && req.headers['access-control-request-method'] !== undefined) {
      res.statusCode = 204;
      res.setHeader('Content-Length', '0');
      res.end();
      return;
    }
    res.setHeader('Cache-Control', 'no-store');
    next();
  };
  return (req, res, next) => {
    // The answer depends on the Origin header whatever it holds: shared caches must key on it.
    res.setHeader('Vary', 'Origin');
    // Without an Origin header (a server, a script, a router) `cors` adds nothing and passes the
    // request on: it is passed on here without the options copy `cors` makes for every request.
    if (req.headers.origin === undefined) {
      passOn(req, res, next);
      return;
    }
    // `cors` calls back with null, not undefined, when it passes a request on.
    middleware(req, res, (error?: unknown) => (error !== undefined && error !== null ? next(error) : passOn(req, res, next)));
  };
}
