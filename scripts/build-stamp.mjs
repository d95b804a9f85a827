// The build stamp: a hash of what the gateway bundle is built from (the sources of src/ and sandbox/,
// the build script, and the packages the lock file resolves). `npm run build` writes it into dist/;
// `npm start` compares it with the sources it finds, to run dist/ only when it was built from them.
// Plain JavaScript with no dependency: `npm start` reads it where dev dependencies are pruned, on
// any Node from 20.
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

/** The stamp's file in a build folder. */
export const STAMP_FILE = 'build-stamp.json';

/** Folders whose files the bundle is built from; tests beside the sources are not part of it. */
const SOURCE_DIRS = ['src', 'sandbox'];
const BUILD_INPUTS = ['scripts/build-gateway.ts'];
const LOCK_FILE = 'package-lock.json';

function filesUnder(root, dir) {
  const entries = readdirSync(path.join(root, dir), { withFileTypes: true });
  return entries.flatMap((entry) => {
    const relative = `${dir}/${entry.name}`;
    if (entry.isDirectory()) return filesUnder(root, relative);
    return entry.isFile() && !entry.name.endsWith('.test.ts') ? [relative] : [];
  });
}

/**
 * What the lock file says the bundle's packages are: each installed package's path, version and
 * integrity, sorted. Not the file's bytes: npm versions write the same resolution differently (npm 11
 * adds the root package's "engines"; `npm prune` and `npm install` rewrite the file), and none of
 * that changes what esbuild bundles. A package's version or integrity does.
 */
function lockedPackages(root) {
  const file = path.join(root, LOCK_FILE);
  if (!existsSync(file)) return [];
  const text = readFileSync(file, 'utf8');
  let packages;
  try {
    ({ packages = {} } = JSON.parse(text));
  } catch {
    // Not JSON (a merge left conflict markers): its bytes, so any change to it still counts.
    return [text];
  }
  return Object.entries(packages)
    .filter(([where]) => where !== '')
    .map(([where, entry]) => `${where}@${entry.version ?? ''} ${entry.integrity ?? entry.resolved ?? ''}`)
    .sort();
}

/** The hash of the build's inputs in `root`; undefined when the sources are not there to hash. */
export function sourcesHash(root) {
  if (!SOURCE_DIRS.every((dir) => existsSync(path.join(root, dir)))) return undefined;
  const files = [...SOURCE_DIRS.flatMap((dir) => filesUnder(root, dir)), ...BUILD_INPUTS.filter((file) => existsSync(path.join(root, file)))].sort();
  const hash = createHash('sha256');
  for (const file of files) hash.update(`${file}\0`).update(readFileSync(path.join(root, file))).update('\0');
  hash.update(`${LOCK_FILE}\0`).update(lockedPackages(root).join('\n'));
  return hash.digest('hex');
}

/** The stamp a build folder holds, or undefined when it has none. */
export function readStamp(outdir) {
  try {
    return JSON.parse(readFileSync(path.join(outdir, STAMP_FILE), 'utf8')).sources;
  } catch {
    return undefined;
  }
}
