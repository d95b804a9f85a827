// Composes openapi/platform.yaml into supergraph.graphql: npm run compose --prefix bench/peer
import { defineConfig } from '@graphql-mesh/compose-cli';
import { loadOpenAPISubgraph } from '@omnigraph/openapi';

// The endpoint is interpolated when the gateway executes, not at compose time,
// so one composed supergraph serves whichever sandbox port the harness picked.
export const composeConfig = defineConfig({
  subgraphs: [
    {
      sourceHandler: loadOpenAPISubgraph('Platform', {
        source: '../../openapi/platform.yaml',
        endpoint: '{env.UPSTREAM_URL}',
      }),
    },
  ],
});
