import { readFileSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from '@jest/globals';

// The image's build stage copies what its build commands load: the two build scripts, every module
// they import from this project (followed from file to file), and the folders copied whole. No
// Docker engine is needed to see a missing file: `docker build` would fail on it at the RUN step.

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const dockerfile = readFileSync(join(ROOT, 'Dockerfile'), 'utf8');
const buildStage = dockerfile.slice(dockerfile.indexOf('AS build'), dockerfile.indexOf('FROM', dockerfile.indexOf('AS build')));

/** The sources the build stage holds: files copied one by one, and folders copied whole (ending in /). */
const copied = [...buildStage.matchAll(/^COPY (?!--from)(.+) \S+$/gm)].flatMap(([, sources]) =>
  sources!.split(' ').map((source) => (/\.[a-z]+$/.test(source) ? source : `${source}/`)),
);

/** Every project file `file` loads through relative imports, itself included. */
function closure(file: string, seen = new Set<string>()): Set<string> {
  if (seen.has(file)) return seen;
  seen.add(file);
  const text = readFileSync(join(ROOT, file), 'utf8');
  for (const [, specifier] of text.matchAll(/^(?:import|export)[^'"]*from '(\.{1,2}\/[^']+)'/gm)) closure(relative(ROOT, normalize(join(ROOT, dirname(file), specifier!))), seen);
  return seen;
}

describe('the image’s build stage', () => {
  it('holds every file the build scripts load', () => {
    const needed = [...closure('scripts/build-gateway.ts'), ...closure('scripts/build-playground.ts')];
    const missing = needed.filter((file) => !copied.some((source) => source === file || (source.endsWith('/') && file.startsWith(source))));
    expect(missing).toEqual([]);
  });
});
