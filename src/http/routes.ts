import { ErrorCode } from '../errors.ts';
import type { Readiness } from '../observability/health.ts';
import type { MetricsAnswer } from '../observability/index.ts';
import { send } from '../send.ts';
import { refuse } from './refusal.ts';
import { isGraphQLPath, pathOf, type Stage } from './stage.ts';

export interface OperatorRoutes {
  readiness: Readiness;
  /** /metrics on the public port; undefined where it is not served there (METRICS=false, or production with the admin listener). */
  scrape: (() => Promise<MetricsAnswer>) | undefined;
}

const JSON_TYPE = 'application/json; charset=utf-8';

/** A route's own path: case-insensitive, one trailing slash allowed (as Express routes matched). */
function routeOf(path: string): string {
  const lower = path.toLowerCase();
  return lower.length > 1 && lower.endsWith('/') ? lower.slice(0, -1) : lower;
}

/**
 * GET (and HEAD) /healthz, /readyz and /metrics on the public port, for a developer's curl and
 * for deployments without the admin listener (src/process/admin.ts serves the same answers there).
 * Liveness is `{"status":"ok"}` whatever the platform does; readiness is the report of
 * src/observability/health.ts, 200 when ready and 503 otherwise.
 */
export function operatorRoutesStage({ readiness, scrape }: OperatorRoutes): Stage {
  return (req, res, next) => {
    if (req.method !== 'GET' && req.method !== 'HEAD') return next();
    switch (routeOf(pathOf(req))) {
      case '/healthz':
        return send(res, 200, JSON_TYPE, JSON.stringify({ status: 'ok' }));
      case '/readyz':
        readiness.check().then((report) => {
          res.setHeader('Cache-Control', 'no-store');
          send(res, report.status === 'ready' ? 200 : 503, JSON_TYPE, JSON.stringify(report));
        }, next);
        return;
      case '/metrics':
        if (!scrape) return next();
        scrape().then((answer) => send(res, answer.status, answer.contentType, answer.body), next);
        return;
      default:
        next();
    }
  };
}

/** Any path but the GraphQL endpoint's that no stage before answered: a JSON 404. */
export const notFoundStage: Stage = (req, res, next) => {
  if (isGraphQLPath(pathOf(req))) return next();
  refuse(res, 404, 'Not found: the GraphQL endpoint is POST /graphql', { code: ErrorCode.NOT_FOUND });
};
