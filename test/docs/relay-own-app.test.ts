import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { loadTrustedDocuments } from '../../src/hardening/trusted-documents.ts';

// docs/web-clients.md's "Relay in your own app", run as written in an app folder outside this
// repository: the API schema printed by the gateway's command, the Relay config of the doc, the
// compiler, and the manifest it writes, read by the gateway.

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const DOC = readFileSync(new URL('../../docs/web-clients.md', import.meta.url), 'utf8');
const section = DOC.slice(DOC.indexOf('**Relay in your own app.**'));
const run = promisify(execFile);
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

let app: string;
let compiled: { stdout: string; stderr: string };

beforeAll(async () => {
  app = mkdtempSync(join(tmpdir(), 'relay-app-'));
  const printCommand = /^ {3}(npm run supergraph -- --api --out schema\.graphql)/m.exec(section)![1]!;
  const [, , script, ...args] = printCommand.split(' ');
  await run('npm', ['run', '--silent', script!, ...args.map((arg) => (arg === 'schema.graphql' ? join(app, arg) : arg))], { cwd: ROOT });
  writeFileSync(join(app, 'relay.config.json'), /`relay\.config\.json` in the app[\s\S]*?```json\n([\s\S]*?)```/.exec(section)![1]!.replace(/^ {3}/gm, ''));
  mkdirSync(join(app, 'src'));
  copyFileSync(join(ROOT, 'client/exceptions-list.ts'), join(app, 'src/exceptions-list.ts'));
  // The doc's first run and release build: the artifact directory, then an empty manifest.
  mkdirSync(join(app, 'src/__generated__'), { recursive: true });
  writeFileSync(join(app, 'trusted-documents.json'), '{}\n');
  const relayCompiler = createRequire(import.meta.url)('relay-compiler') as string;
  compiled = await run(relayCompiler, ['--noWatchman', join(app, 'relay.config.json')], { cwd: app });
}, 60_000);

afterAll(() => {
  if (app) rmSync(app, { recursive: true, force: true });
});

describe("docs/web-clients.md: Relay in one's own app", () => {
  it('compiles against the printed API schema and writes a manifest of id → text, each id the SHA-256 of its text', () => {
    const manifest = JSON.parse(readFileSync(join(app, 'trusted-documents.json'), 'utf8')) as Record<string, string>;
    const names = Object.values(manifest).map((text) => /^query (\w+)/.exec(text)?.[1]);
    expect(names.sort()).toEqual(['exceptionsListPaginationQuery', 'exceptionsListQuery']);
    expect(Object.entries(manifest).filter(([id, text]) => id !== sha256(text))).toEqual([]);
    expect(compiled.stderr).not.toMatch(/error/i);
  });

  it('gives each operation the id its artifact carries, and the gateway reads the manifest', async () => {
    const manifest = JSON.parse(readFileSync(join(app, 'trusted-documents.json'), 'utf8')) as Record<string, string>;
    const artifacts = readdirSync(join(app, 'src/__generated__')).filter((file) => /Query\.graphql\.ts$/.test(file));
    const ids = artifacts.map((file) => /"id": "([0-9a-f]{64})"/.exec(readFileSync(join(app, 'src/__generated__', file), 'utf8'))?.[1]);
    expect(ids.sort()).toEqual(Object.keys(manifest).sort());
    const trusted = await loadTrustedDocuments(join(app, 'trusted-documents.json'));
    expect(Object.keys(manifest).map((id) => trusted.lookup(id))).toEqual(Object.values(manifest));
  });
});
