import { playgroundOffStage } from './playground.ts';
import { notFoundStage } from './routes.ts';
import type { Stage } from './stage.ts';

/** The front door's stages, built by their owners (src/server.ts puts them together); absent ones are off in this configuration. */
export interface RequestPathStages {
  /** /healthz, /readyz and /metrics (src/http/routes.ts). */
  operatorRoutes: Stage;
  /** The playground's page (a browser's GET of /graphql) and bundle, where the playground is served. */
  playground: Stage | undefined;
  /** CORS and `Cache-Control: no-store` (src/http/web-client-headers.ts). */
  webClientHeaders: Stage;
  /** Who is asking, and whether they may (src/budgets/). */
  admission: Stage;
  /** `req.body` (src/http/body.ts). */
  body: Stage;
  /** At most BATCH_SIZE operations in a batch, where batches are allowed (src/http/batch-limit.ts). */
  batchLimit: Stage | undefined;
  /** Trusted documents (src/hardening/trusted-documents.ts), where a manifest is configured. */
  trustedDocuments: Stage | undefined;
  /** Apollo Server, with the one context factory, for every operation: a stream's transport (SSE, multipart) only frames its outcome (src/http/graphql.ts). */
  graphql: Stage;
}

/**
 * The whole way of a request through the front door, in order: the one place it is written. Each
 * stage answers the request or passes it on (src/http/stage.ts); the front door (front-door.ts)
 * runs the list for every request, whatever its path, method or body.
 */
export function requestPath(stages: RequestPathStages): Stage[] {
  const path: Array<Stage | undefined> = [
    stages.operatorRoutes,
    stages.playground,
    // Any path but /graphql and below: a JSON 404.
    notFoundStage,
    // From here on, /graphql only. CORS first, so every answer below carries it; a preflight ends here.
    stages.webClientHeaders,
    // A browser opening the endpoint where the playground is not served gets a page saying so.
    stages.playground === undefined ? playgroundOffStage : undefined,
    // Too many refused tokens from one address: 429 before the body is read.
    stages.admission,
    // A body that cannot be read is refused here.
    stages.body,
    stages.batchLimit,
    // Ids of trusted documents swapped for their text (and, in `only` mode, anything else refused).
    stages.trustedDocuments,
    // Last: it always answers.
    stages.graphql,
  ];
  return path.filter((stage) => stage !== undefined);
}
