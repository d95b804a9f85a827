import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { sourcesHash } from '../scripts/build-stamp.mjs';

// dist/'s build stamp changes with what the bundle is built from, and only with that: the lock
// file counts by the packages it resolves, not by how one npm version writes it.

let root: string;
const lock = (packages: Record<string, { version: string; integrity: string; dev?: boolean }>, extra: Record<string, unknown> = {}) => ({
  name: 'gateway',
  lockfileVersion: 3,
  requires: true,
  packages: { '': { name: 'gateway', ...extra }, ...packages },
});
const write = (file: string, text: string) => writeFileSync(join(root, file), text);
const GOT = { 'node_modules/got': { version: '16.1.0', integrity: 'sha512-got' } };
const NODE = { 'node_modules/node': { version: '24.21.0', integrity: 'sha512-node', dev: true } };

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'build-stamp-'));
  for (const dir of ['src', 'sandbox', 'scripts']) mkdirSync(join(root, dir));
  write('src/main.ts', 'export {};\n');
  write('sandbox/index.ts', 'export {};\n');
  write('scripts/build-gateway.ts', '// build\n');
  write('package-lock.json', `${JSON.stringify(lock({ ...GOT, ...NODE }), null, 2)}\n`);
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

describe('the build stamp', () => {
  it('stays when npm rewrites the lock file without changing a package: an engines entry, another layout, a dev flag', () => {
    const before = sourcesHash(root);
    write('package-lock.json', JSON.stringify(lock({ ...NODE, ...GOT, 'node_modules/node': { ...NODE['node_modules/node'], dev: false } }, { engines: { node: '>=22.18.0' } }), null, 4));
    expect(sourcesHash(root)).toBe(before);
  });

  it("changes with a package's version or integrity, with a package added, and with a source", () => {
    const hashes = [sourcesHash(root)];
    write('package-lock.json', JSON.stringify(lock({ ...NODE, 'node_modules/got': { version: '16.1.1', integrity: 'sha512-got' } })));
    hashes.push(sourcesHash(root));
    write('package-lock.json', JSON.stringify(lock({ ...NODE, 'node_modules/got': { version: '16.1.1', integrity: 'sha512-other' } })));
    hashes.push(sourcesHash(root));
    write('package-lock.json', JSON.stringify(lock({ ...NODE, ...GOT, 'node_modules/ws': { version: '8.23.0', integrity: 'sha512-ws' } })));
    hashes.push(sourcesHash(root));
    write('src/main.ts', 'export const changed = 1;\n');
    hashes.push(sourcesHash(root));
    expect(new Set(hashes).size).toBe(hashes.length);
  });

  it('counts a lock file that is not JSON by its bytes', () => {
    write('package-lock.json', '<<<<<<< HEAD\n');
    const conflicted = sourcesHash(root);
    write('package-lock.json', '<<<<<<< main\n');
    expect(sourcesHash(root)).not.toBe(conflicted);
  });
});
