import { readFileSync } from 'node:fs';
import { describe, expect, it } from '@jest/globals';
import { NODE_FLOOR, unsupportedNode } from '../src/supported-node.js';

// The Node versions start-up accepts, and the one line that refuses the others.

const packageJson = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { engines: { node: string } };

describe('unsupportedNode', () => {
  it('has the floor package.json declares in `engines`', () => {
    expect(packageJson.engines).toEqual({ node: `>=${NODE_FLOOR}` });
  });

  it('refuses the versions below the floor, in one line naming the floor, the binary and its version', () => {
    expect(unsupportedNode('20.20.2', '/usr/bin/node')).toBe(
      'This gateway needs Node 22.18.0 or newer (package.json "engines"); /usr/bin/node is Node 20.20.2: put a newer Node first on PATH (24, which it is built and tested on)',
    );
    expect(['18.20.8', '21.99.0', '22.0.0', '22.17.9'].map((version) => unsupportedNode(version, 'node') !== undefined)).toEqual([true, true, true, true]);
  });

  it('accepts the floor and every version above it', () => {
    expect(['22.18.0', '22.18.1', '22.20.0', '23.0.0', '24.21.0', '25.1.0'].map((version) => unsupportedNode(version, 'node'))).toEqual([undefined, undefined, undefined, undefined, undefined, undefined]);
  });

  it('accepts the Node running the tests', () => {
    expect(unsupportedNode()).toBeUndefined();
  });
});
