// compose-supergraph.mjs
import { writeFileSync } from 'node:fs';
import { composeServices } from '@theguild/federation-composition';
import { parse } from 'graphql';

// Arguments: name=url for each subgraph.
const subgraphs = await Promise.all(
  process.argv.slice(2).map(async (argument) => {
    const [name, url] = [argument.slice(0, argument.indexOf('=')), argument.slice(argument.indexOf('=') + 1)];
    const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query: '{ _service { sdl } }' }) });
    const { data } = await response.json();
    return { name, url, typeDefs: parse(data._service.sdl) };
  }),
);
const result = composeServices(subgraphs);
if (result.errors) {
  console.error(result.errors.map((error) => error.message).join('\n'));
  process.exit(1);
}
writeFileSync('supergraph.graphql', result.supergraphSdl);
console.log(`Wrote supergraph.graphql (${subgraphs.map((subgraph) => subgraph.name).join(', ')})`);
