import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from '@jest/globals';

// `npm run supergraph -- --out FILE` and `npm run build -- OUTDIR` typed in a folder of the project
// other than its root: npm runs the script in the root, and the path is where the user stands.

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
mkdirSync(join(ROOT, 'test/artifacts'), { recursive: true });
const folder = mkdtempSync(join(ROOT, 'test/artifacts/supergraph-out-'));

afterAll(() => rmSync(folder, { recursive: true, force: true }));

describe('npm run supergraph -- --out FILE', () => {
  it('writes FILE relative to the folder the command was typed in', async () => {
    const { stdout, stderr } = await promisify(execFile)('npm', ['run', '--silent', 'supergraph', '--', '--api', '--out', 'api-schema.graphql'], { cwd: folder });
    const written = readFileSync(join(folder, 'api-schema.graphql'), 'utf8');
    expect({ stdout, stderr, root: existsSync(join(ROOT, 'api-schema.graphql')) }).toEqual({
      stdout: `Wrote the API schema to api-schema.graphql (${Buffer.byteLength(written)} bytes)\n`,
      stderr: '',
      root: false,
    });
    expect(written).toMatch(/^type Query \{$/m);
  }, 60_000);
});

describe('npm run build -- OUTDIR', () => {
  it('builds into OUTDIR relative to the folder the command was typed in', async () => {
    const { stdout } = await promisify(execFile)('npm', ['run', '--silent', 'build', '--', 'gateway-out'], { cwd: folder });
    expect({ stdout: stdout.replace(/ in \d+ ms$/m, ' in (time)'), main: existsSync(join(folder, 'gateway-out/main.js')), root: existsSync(join(ROOT, 'gateway-out')) }).toEqual({
      stdout: `Gateway built into ${join(folder, 'gateway-out')} in (time)\n`,
      main: true,
      root: false,
    });
  }, 120_000);
});
