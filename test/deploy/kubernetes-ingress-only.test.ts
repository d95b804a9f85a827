import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from '@jest/globals';
import proxyAddr from 'proxy-addr';
import { parseAllDocuments } from 'yaml';

// The example overlay's answer to "who may say which address a request came from": only the Ingress
// controller reaches the GraphQL port, and TRUSTED_PROXIES names its addresses, not the pod network.

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const OVERLAY = 'deploy/kubernetes/overlays/example';
const hasKubectl = spawnSync('kubectl', ['version', '--client'], { stdio: 'ignore' }).status === 0;
const withKubectl = hasKubectl || process.env.CI ? it : it.skip;

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/** The overlay as `kubectl kustomize` renders it, in a copy holding the cursor secret the docs' step writes. */
function renderOverlay(): Json[] {
  const root = mkdtempSync(join(tmpdir(), 'kustomize-ingress-'));
  try {
    cpSync(join(ROOT, 'deploy'), join(root, 'deploy'), { recursive: true });
    writeFileSync(join(root, OVERLAY, 'cursor-secret.env'), `CURSOR_SECRET=${'k'.repeat(64)}\n`);
    return parseAllDocuments(execFileSync('kubectl', ['kustomize', join(root, OVERLAY)], { encoding: 'utf8' })).map((document) => document.toJS() as Json);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

function settings(): Record<string, string> {
  const lines = readFileSync(join(ROOT, OVERLAY, 'settings.env'), 'utf8').split('\n').filter((line) => line.trim() !== '' && !line.startsWith('#'));
  return Object.fromEntries(lines.map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]));
}

describe('the example overlay', () => {
  withKubectl('opens the GraphQL port to the Ingress controller\'s namespace only, and the admin port to monitoring only', () => {
    const policy = renderOverlay().find((object) => object.kind === 'NetworkPolicy' && object.metadata.name === 'platform-gateway')!;
    expect(policy.spec.ingress).toEqual([
      { from: [{ namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'ingress-nginx' } } }], ports: [{ port: 'http', protocol: 'TCP' }] },
      { from: [{ namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'monitoring' } } }], ports: [{ port: 'admin', protocol: 'TCP' }] },
    ]);
    const ingress = renderOverlay().find((object) => object.kind === 'Ingress')!;
    expect(ingress.spec.ingressClassName).toBe('nginx');
  });

  it('trusts X-Forwarded-For from the controller\'s own range, not from the pod network', () => {
    const { TRUSTED_PROXIES } = settings();
    expect(TRUSTED_PROXIES).toBe('10.244.250.0/24');
    const trust = proxyAddr.compile([TRUSTED_PROXIES!]);
    // A controller pod in its range is believed; any other pod of the cluster's 10.244.0.0/16 is not.
    expect([trust('10.244.250.17', 0), trust('10.244.3.9', 0), trust('10.244.249.255', 0)]).toEqual([true, false, false]);
  });
});
