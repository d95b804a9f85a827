import { describe, expect, it } from '@jest/globals';
import { readdirSync, readFileSync } from 'node:fs';

// The compiled executor rests on what its libraries and the runtime promise: no private field of
// graphql-jit, no reading of V8's stack text, and no V8 flag the gateway needs to stay within its
// memory bound (the compiled cache is priced from each document's text, compile-plan.ts).

const root = new URL('../../', import.meta.url);
const sources = readdirSync(new URL('src/', root), { recursive: true, encoding: 'utf8' }).filter((file) => file.endsWith('.ts'));
const read = (file: string) => readFileSync(new URL(file, root), 'utf8');

describe('compiled execution on public surfaces', () => {
  it('no module of src/ reads a private field of graphql-jit, decides by stack frames, builds code from source or sets V8 flags', () => {
    // Stacks are still logged (logger.ts, format-error.ts); nothing looks for a frame in them.
    const leaning = sources.filter((file) => /__DO_NOT_USE|eval at|stackTraceLimit|new Function\(|setFlagsFromString/.test(read(`src/${file}`)));
    expect(leaning).toEqual([]);
  });

  it("starts the gateway's process without V8's compilation cache flag: npm start and the image's command", () => {
    const start = (JSON.parse(read('package.json')) as { scripts: { start: string } }).scripts.start;
    expect(start).toBe('exec node --disable-warning=ExperimentalWarning --max-semi-space-size=16 scripts/start.mjs');
    expect(read('Dockerfile').split('\n').find((line) => line.startsWith('CMD '))).toBe('CMD ["node", "--max-semi-space-size=16", "dist/main.js"]');
  });
});
