// Prints the supergraph SDL of this subgraph composed alone, for teams that run it
// behind a router. With --api prints the client-facing API schema instead.
//   npm run supergraph > supergraph.graphql
//   npm run supergraph -- --url https://bff.example.com/graphql > supergraph.graphql
//   npm run supergraph -- --api > schema.graphql
import { parseArgs } from 'node:util';
import { apiSchemaSdl, composeThisSubgraph } from './supergraph.ts';

const { values } = parseArgs({
  options: {
    api: { type: 'boolean', default: false },
    url: { type: 'string', default: 'http://localhost:4000/graphql' },
  },
});

try {
  const sdl = values.api ? apiSchemaSdl() : composeThisSubgraph(values.url).supergraphSdl;
  process.stdout.write(sdl.endsWith('\n') ? sdl : `${sdl}\n`);
} catch (error) {
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
}
