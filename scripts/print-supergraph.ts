// Prints the supergraph SDL of this subgraph composed alone, for teams that run it
// behind a router. With --api prints the client-facing API schema instead.
// --out FILE writes the file itself: `npm run` prints its own banner on standard
// output, so a redirected `npm run supergraph > file` would not be valid SDL.
//   npm run supergraph -- --url https://bff.example.com/graphql --out supergraph.graphql
//   npm run supergraph -- --api --out schema.graphql
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { readCommandLine } from '../src/settings/command-line.ts';
import { apiSchemaSdl, composeThisSubgraph } from './supergraph.ts';

const { values } = readCommandLine(
  {
    options: {
      api: { type: 'boolean', default: false },
      url: { type: 'string', default: 'http://localhost:4000/graphql' },
      out: { type: 'string' },
    },
  },
  {
    command: 'npm run supergraph',
    summary: 'Prints the supergraph SDL of this subgraph composed alone (subgraph "platform"), for a router to serve.',
    options: {
      api: { text: 'print the client-facing API schema instead (for client tooling such as relay-compiler)' },
      url: { text: 'the URL the router sends this subgraph\'s requests to', value: 'URL' },
      out: { text: 'write the SDL to FILE (relative to the current folder) and print one line saying so (else: to standard output)', value: 'FILE' },
    },
    examples: ['npm run supergraph -- --url https://bff.example.com/graphql --out supergraph.graphql', 'npm run supergraph -- --api --out schema.graphql'],
  },
);

try {
  const sdl = values.api ? apiSchemaSdl() : composeThisSubgraph(values.url).supergraphSdl;
  const text = sdl.endsWith('\n') ? sdl : `${sdl}\n`;
  if (values.out === undefined) process.stdout.write(text);
  else {
    // Relative to the folder the command was typed in: `npm run` runs scripts in the project's root
    // and says where it was started in INIT_CWD.
    writeFileSync(path.resolve(process.env.INIT_CWD ?? process.cwd(), values.out), text);
    // npm's banner above is all a user would otherwise see: say what was written, and where.
    const what = values.api ? 'the API schema' : `the supergraph of subgraph "platform" at ${values.url}`;
    process.stdout.write(`Wrote ${what} to ${values.out} (${Buffer.byteLength(text)} bytes)\n`);
  }
} catch (error) {
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
}
