import { execFileSync, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { loadConfig } from '../../src/settings/config.ts';
import { bearer, postGraphQL } from '../support/graphql-client.ts';
import {
  KUBERNETES_DIR,
  KUSTOMIZATION,
  ROOT,
  describeManifest,
  find,
  gatewaySettings,
  mebibytes,
  modelFor,
  readManifests,
  readYaml,
  settingsTheCodeReads,
  startDeployedGateway,
  unknownFields,
  type DeployedGateway,
  type Json,
  type Manifest,
} from './support.ts';

const manifests = readManifests();
const gateway = find(manifests, 'Deployment', 'platform-gateway');
const redis = find(manifests, 'Deployment', 'platform-gateway-redis');
const container = gateway.spec.template.spec.containers.find((c: Json) => c.name === 'gateway');
const settings = gatewaySettings();
const budgetRedis = find(manifests, 'Deployment', 'platform-gateway-budget-redis');
const dockerfile = readFileSync(join(ROOT, 'Dockerfile'), 'utf8');

/** Every problem the schemas of the manifests' API versions find, one line per manifest. */
async function schemaProblems(list: Manifest[]): Promise<string[]> {
  const problems: string[] = [];
  for (const manifest of list) {
    try {
      const Model = await modelFor(manifest.object);
      new Model(manifest.object).validate();
    } catch (error) {
      problems.push(`${describeManifest(manifest)}: ${(error as Error).message}`);
    }
  }
  return problems;
}

const matches = (selector: Record<string, string>, labels: Record<string, string>) => Object.entries(selector).every(([key, value]) => labels[key] === value);

describe('deploy/kubernetes manifests', () => {
  it('are the gateway, its Service, network policy, autoscaler and disruption budget, and the two Redis', () => {
    expect(manifests.map((m) => `${m.file} ${m.object.apiVersion} ${m.object.kind}/${m.object.metadata.name}`)).toEqual([
      'budget-redis-deployment.yaml apps/v1 Deployment/platform-gateway-budget-redis',
      'budget-redis-networkpolicy.yaml networking.k8s.io/v1 NetworkPolicy/platform-gateway-budget-redis',
      'budget-redis-service.yaml v1 Service/platform-gateway-budget-redis',
      'deployment.yaml apps/v1 Deployment/platform-gateway',
      'hpa.yaml autoscaling/v2 HorizontalPodAutoscaler/platform-gateway',
      'networkpolicy.yaml networking.k8s.io/v1 NetworkPolicy/platform-gateway',
      'pdb.yaml policy/v1 PodDisruptionBudget/platform-gateway',
      'redis-deployment.yaml apps/v1 Deployment/platform-gateway-redis',
      'redis-networkpolicy.yaml networking.k8s.io/v1 NetworkPolicy/platform-gateway-redis',
      'redis-service.yaml v1 Service/platform-gateway-redis',
      'service.yaml v1 Service/platform-gateway',
    ]);
  });

  it('are each valid against the Kubernetes API schema of their apiVersion and kind', async () => {
    expect(await schemaProblems(manifests)).toEqual([]);
  });

  it('name no field the Kubernetes API does not know, at any level', () => {
    expect(unknownFields(manifests)).toEqual([]);
  });

  it('would be refused with a misspelt field, a bad value or an unknown kind', async () => {
    const broken = structuredClone(gateway);
    const brokenContainer = broken.spec.template.spec.containers[0];
    brokenContainer.imagePullPolicyy = brokenContainer.imagePullPolicy;
    delete brokenContainer.imagePullPolicy;
    brokenContainer.resources.limits.memory = '768MB';
    const list = [{ file: 'deployment.yaml', index: 0, object: broken }];
    expect(unknownFields(list)).toEqual([
      `deployment.yaml#0 Deployment/platform-gateway: Object literal may only specify known properties, and '"imagePullPolicyy"' does not exist in type 'IContainer'. (at "imagePullPolicyy": "IfNotPresent")`,
    ]);
    const [problem] = await schemaProblems(list);
    expect(problem).toMatch(/^deployment\.yaml#0 Deployment\/platform-gateway: .*data\/spec\/template\/spec\/containers\/0\/resources\/limits\/memory must match format "quantity"/);
    await expect(modelFor({ apiVersion: 'apps/v1', kind: 'Deploymnet' })).rejects.toThrow('unknown kind: apps/v1 Deploymnet');
    await expect(modelFor({ apiVersion: 'extensions/v1beta1', kind: 'Deployment' })).rejects.toThrow('apiVersion extensions/v1beta1 is not a GA version: current releases may not serve it');
    await expect(modelFor({ apiVersion: 'policy/v1beta1', kind: 'PodDisruptionBudget' })).rejects.toThrow('apiVersion policy/v1beta1 is not a GA version');
    await expect(modelFor({ apiVersion: 'v1', kind: 'Container' })).rejects.toThrow('unknown kind: v1 Container');
    await expect(modelFor({ apiVersion: 'autoscaling/v3', kind: 'HorizontalPodAutoscaler' })).rejects.toThrow('unknown kind: autoscaling/v3 HorizontalPodAutoscaler');
  });

  it('are every one listed in the kustomization, which lists nothing else', () => {
    const kustomization = readYaml(join(KUBERNETES_DIR, KUSTOMIZATION));
    expect([kustomization.apiVersion, kustomization.kind]).toEqual(['kustomize.config.k8s.io/v1beta1', 'Kustomization']);
    const files = readdirSync(KUBERNETES_DIR).filter((file) => /\.ya?ml$/.test(file) && file !== KUSTOMIZATION);
    expect([...kustomization.resources].sort()).toEqual(files.sort());
    expect(kustomization.images).toEqual([{ name: container.image, newTag: expect.any(String) }]);
    // The settings come from a generator, so that a changed value renames the ConfigMap and rolls the pods.
    expect(kustomization.configMapGenerator).toEqual([{ name: 'platform-gateway', envs: ['gateway.env'], options: { labels: { 'app.kubernetes.io/name': 'platform-gateway' } } }]);
  });

  it('select and reference each other by the names and labels they carry', () => {
    const podLabels = gateway.spec.template.metadata.labels;
    expect(matches(gateway.spec.selector.matchLabels, podLabels)).toBe(true);
    const service = find(manifests, 'Service', 'platform-gateway');
    expect(matches(service.spec.selector, podLabels)).toBe(true);
    const portNames = container.ports.map((p: Json) => p.name);
    expect(service.spec.ports.map((p: Json) => p.targetPort)).toEqual(['http']);
    expect(portNames).toContain('http');

    const hpa = find(manifests, 'HorizontalPodAutoscaler', 'platform-gateway');
    expect(hpa.spec.scaleTargetRef).toEqual({ apiVersion: gateway.apiVersion, kind: gateway.kind, name: gateway.metadata.name });
    // The autoscaler owns the replica count; a count in the Deployment would reset it on every apply.
    expect(gateway.spec.replicas).toBeUndefined();
    expect(hpa.spec.minReplicas).toBeGreaterThanOrEqual(2);
    const pdb = find(manifests, 'PodDisruptionBudget', 'platform-gateway');
    expect(matches(pdb.spec.selector.matchLabels, podLabels)).toBe(true);
    expect(pdb.spec.maxUnavailable).toBeLessThan(hpa.spec.minReplicas);

    expect(container.envFrom).toEqual([{ configMapRef: { name: 'platform-gateway' } }]);

    const redisLabels = redis.spec.template.metadata.labels;
    const redisService = find(manifests, 'Service', 'platform-gateway-redis');
    expect(matches(redisService.spec.selector, redisLabels)).toBe(true);
    const redisPort = redis.spec.template.spec.containers[0].ports.find((p: Json) => p.name === redisService.spec.ports[0].targetPort);
    expect(redisPort.containerPort).toBe(6379);
    // Each Redis URL names its own Redis's Service: persisted queries in one, budgets in the other.
    for (const [setting, workload] of [['REDIS_URL', redis], ['RATE_LIMIT_REDIS_URL', budgetRedis]] as const) {
      const name = workload.metadata.name as string;
      const labels = workload.spec.template.metadata.labels;
      const redisService = find(manifests, 'Service', name);
      expect(matches(redisService.spec.selector, labels)).toBe(true);
      const redisPort = workload.spec.template.spec.containers[0].ports.find((p: Json) => p.name === redisService.spec.ports[0].targetPort);
      expect(redisPort.containerPort).toBe(6379);
      const url = new URL(settings[setting]!);
      expect([setting, url.protocol, url.hostname, Number(url.port)]).toEqual([setting, 'redis:', name, redisService.spec.ports[0].port]);
      const policy = find(manifests, 'NetworkPolicy', name);
      expect(matches(policy.spec.podSelector.matchLabels, labels)).toBe(true);
      expect(matches(policy.spec.ingress[0].from[0].podSelector.matchLabels, podLabels)).toBe(true);
      expect(policy.spec.ingress[0].ports).toEqual([{ port: redisPort.name, protocol: 'TCP' }]);
    }
    expect(redisLabels).toEqual({ 'app.kubernetes.io/name': 'platform-gateway-redis', 'app.kubernetes.io/component': 'shared-state' });
  });

  it('keep persisted queries in a Redis that may evict, and budgets in one that never does', () => {
    const policy = (workload: Json) => {
      const args: string[] = workload.spec.template.spec.containers[0].args;
      return args[args.indexOf('--maxmemory-policy') + 1];
    };
    expect([policy(redis), policy(budgetRedis)]).toEqual(['allkeys-lru', 'noeviction']);
    expect([settings.REDIS_URL, settings.RATE_LIMIT_REDIS_URL]).toEqual(['redis://platform-gateway-redis:6379', 'redis://platform-gateway-budget-redis:6379']);
  });

  it('set the recommended per-caller budget, counted in platform calls', () => {
    expect([settings.RATE_LIMIT_PER_SECOND, settings.RATE_LIMIT_BURST]).toEqual(['20', '200']);
    expect(Object.keys(settings).filter((name) => name.startsWith('AUTH_FAILURE_'))).toEqual([]);
  });

  it('let the gateway pods take GraphQL from anywhere, the admin port from monitoring only, and reach only DNS, the two Redis and HTTPS', () => {
    const policy = find(manifests, 'NetworkPolicy', 'platform-gateway');
    expect(policy.spec.podSelector.matchLabels).toEqual(gateway.spec.selector.matchLabels);
    expect(policy.spec.policyTypes).toEqual(['Ingress', 'Egress']);
    expect(policy.spec.ingress).toEqual([
      { ports: [{ port: 'http', protocol: 'TCP' }] },
      { from: [{ namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'monitoring' } } }], ports: [{ port: 'admin', protocol: 'TCP' }] },
    ]);
    const [dns, redisRule, platform] = policy.spec.egress;
    expect(dns.ports).toEqual([{ port: 53, protocol: 'UDP' }, { port: 53, protocol: 'TCP' }]);
    expect(redisRule.to.map((peer: Json) => peer.podSelector.matchLabels)).toEqual([redis.spec.selector.matchLabels, budgetRedis.spec.selector.matchLabels]);
    expect(redisRule.ports).toEqual([{ port: 6379, protocol: 'TCP' }]);
    expect(new URL(settings.UPSTREAM_URL!).protocol).toBe('https:');
    expect(platform).toEqual({ to: [{ ipBlock: { cidr: '0.0.0.0/0' } }], ports: [{ port: 443, protocol: 'TCP' }] });
    expect(policy.spec.egress).toHaveLength(3);
  });

  it('serve on the port the image and the gateway default to', () => {
    const imagePort = /^ENV .*\bPORT=(\d+)\b/m.exec(dockerfile)?.[1];
    const exposed = /^EXPOSE (\d+)$/m.exec(dockerfile)?.[1];
    const http = container.ports.find((p: Json) => p.name === 'http');
    expect([Number(imagePort), Number(exposed), loadConfig({}).port, Number(settings.PORT), http.containerPort]).toEqual([4000, 4000, 4000, 4000, 4000]);
    expect(settings.HOST).toBe('0.0.0.0');
    // Probes on the admin listener, outside the public port's connection cap and rate limit.
    const admin = container.ports.find((p: Json) => p.name === 'admin');
    expect([settings.ADMIN_HOST, Number(settings.ADMIN_PORT), admin.containerPort]).toEqual(['0.0.0.0', 9090, 9090]);
    for (const probe of [container.startupProbe, container.livenessProbe, container.readinessProbe]) expect(probe.httpGet.port).toBe('admin');
    // The GraphQL Service exposes GraphQL only: metrics are scraped from the pods' admin port.
    expect(find(manifests, 'Service', 'platform-gateway').spec.ports).toEqual([{ name: 'http', port: 80, targetPort: 'http', protocol: 'TCP' }]);
  });

  it('run every container as a non-root user on a read-only root file system, without privileges', () => {
    // The Dockerfile runs the gateway as the node image's `node` user, uid and gid 1000.
    expect(dockerfile).toMatch(/^USER node$/m);
    expect(gateway.spec.template.spec.securityContext).toMatchObject({ runAsNonRoot: true, runAsUser: 1000, runAsGroup: 1000 });
    for (const workload of [gateway, redis, budgetRedis]) {
      const pod = workload.spec.template.spec;
      expect(pod.securityContext).toMatchObject({ runAsNonRoot: true, seccompProfile: { type: 'RuntimeDefault' } });
      expect(pod.automountServiceAccountToken).toBe(false);
      for (const c of pod.containers) {
        expect([c.name, c.securityContext]).toEqual([c.name, { allowPrivilegeEscalation: false, readOnlyRootFilesystem: true, runAsNonRoot: true, capabilities: { drop: ['ALL'] } }]);
        // Whatever the process may write lives on an emptyDir of bounded size.
        for (const mount of c.volumeMounts ?? []) {
          const volume = pod.volumes.find((v: Json) => v.name === mount.name);
          expect([mount.mountPath, Object.keys(volume).sort(), typeof volume.emptyDir.sizeLimit]).toEqual([mount.mountPath, ['emptyDir', 'name'], 'string']);
        }
      }
    }
    expect(container.volumeMounts.map((m: Json) => m.mountPath)).toEqual(['/tmp']);
  });

  it('size the gateway from the benchmark: memory above its peak RSS, CPU for one event loop', () => {
    const results = readFileSync(join(ROOT, 'bench/results.md'), 'utf8');
    const peak = Number(/\| Gateway RSS, peak during saturation runs \| ([\d.]+) MiB/.exec(results)?.[1]);
    expect(peak).toBeGreaterThan(100);
    const { requests, limits } = container.resources;
    // The request holds the measured peak; the limit leaves the uncapped V8 heap twice that.
    expect(mebibytes(requests.memory)).toBeGreaterThanOrEqual(peak);
    expect(mebibytes(limits.memory)).toBeGreaterThanOrEqual(2 * peak);
    // One process (WORKERS=1) runs JavaScript on one core; its GC threads may briefly use more.
    expect([settings.WORKERS, requests.cpu, limits.cpu]).toEqual(['1', '1', '2']);
    const hpa = find(manifests, 'HorizontalPodAutoscaler', 'platform-gateway');
    expect(hpa.spec.metrics).toEqual([{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 60 } } }]);
    for (const c of redis.spec.template.spec.containers) expect(Object.keys(c.resources).sort()).toEqual(['limits', 'requests']);
  });

  it('give a stopping pod longer than the pre-stop pause and the drain together', () => {
    const pause = container.lifecycle.preStop.sleep.seconds;
    const drainMs = loadConfig(settings).shutdownTimeoutMs;
    expect(pause).toBeGreaterThan(0);
    expect(drainMs).toBe(10_000);
    expect(gateway.spec.template.spec.terminationGracePeriodSeconds).toBeGreaterThan(pause + drainMs / 1000);
  });

  it('let a platform call time out, retries included, before the request deadline stops it', () => {
    // Every attempt of a GET to a hanging route then ends by its own timeout, which tells the route's
    // breaker at once (src/platform/policy-chain.ts), and the field answers before the request's deadline.
    const longestCall = (config: ReturnType<typeof loadConfig>) => {
      const { retryLimit, responseTimeoutMs, retryBaseMs } = config.upstream;
      const backoff = Array.from({ length: retryLimit }, (_, n) => retryBaseMs * 2 ** n).reduce((a, b) => a + b, 0);
      return (retryLimit + 1) * responseTimeoutMs + backoff;
    };
    const deployed = loadConfig(settings);
    expect([longestCall(deployed), deployed.requestDeadlineMs]).toEqual([6_300, 8_000]);
    expect(longestCall(deployed)).toBeLessThan(deployed.requestDeadlineMs);
  });

  it('set only variables the gateway reads, with values its configuration accepts', () => {
    const read = settingsTheCodeReads();
    const named = [...Object.keys(settings), ...(container.env ?? []).map((e: Json) => e.name as string)];
    expect(named.filter((name) => !read.has(name))).toEqual([]);
    // Ensures the recorder sees the schema: a name it misses would make the check above vacuous.
    expect(['NODE_ENV', 'UPSTREAM_URL', 'REDIS_URL', 'SHUTDOWN_TIMEOUT_MS'].filter((name) => !read.has(name))).toEqual([]);
    expect(read.has('NOT_A_SETTING')).toBe(false);
    for (const value of Object.values(settings)) expect(typeof value).toBe('string');
    const config = loadConfig(settings);
    expect([config.env, config.host, config.port, config.upstreamUrl, config.redisUrl, config.playground, config.introspection]).toEqual([
      'production',
      '0.0.0.0',
      4000,
      'https://platform.example.com',
      'redis://platform-gateway-redis:6379',
      false,
      false,
    ]);
  });
});

describe('the real gateway process with the ConfigMap settings, its Redis down', () => {
  let deployed: DeployedGateway;
  beforeAll(async () => {
    deployed = await startDeployedGateway(settings);
  }, 30_000);
  afterAll(() => deployed?.close());

  it('answers the probes the Deployment sends, where it sends them', async () => {
    const probes = [container.startupProbe, container.livenessProbe, container.readinessProbe].map((p: Json) => p.httpGet.path as string);
    expect(probes).toEqual(['/healthz', '/healthz', '/readyz']);
    // Every probe goes to the admin listener: the public port's connection cap cannot lock it out.
    const adminPort = (container.ports as Json[]).find((p) => p.name === 'admin')!.containerPort;
    expect([container.startupProbe, container.livenessProbe, container.readinessProbe].map((p: Json) => p.httpGet.port)).toEqual(['admin', 'admin', 'admin']);
    expect([adminPort, settings.ADMIN_PORT]).toEqual([9090, '9090']);
    const answers = await Promise.all(
      probes.map(async (path) => {
        const response = await fetch(`${deployed.adminUrl}${path}`);
        return [path, response.status, ((await response.json()) as { status: string }).status];
      }),
    );
    expect(answers).toEqual([
      ['/healthz', 200, 'ok'],
      ['/healthz', 200, 'ok'],
      ['/readyz', 200, 'ready'],
    ]);
    expect((await fetch(`${deployed.adminUrl}/livez`)).status).toBe(404);
  });

  it('serves queries while Redis is down: a persisted-query hash alone misses, the full query is answered', async () => {
    const query = '{ exceptions(first: 1) { totalCount } }';
    const persistedQuery = { version: 1, sha256Hash: createHash('sha256').update(query).digest('hex') };
    const post = async (body: Record<string, unknown>) => {
      const { status, body: answer } = await postGraphQL<Json>(`${deployed.url}/graphql`, body, bearer(deployed.sandbox.tokens[0]!.token));
      return [status, answer.errors?.[0]?.extensions?.code ?? answer.data?.exceptions?.totalCount];
    };
    expect(await post({ extensions: { persistedQuery } })).toEqual([200, 'PERSISTED_QUERY_NOT_FOUND']);
    expect(await post({ query, extensions: { persistedQuery } })).toEqual([200, 300]);
    expect(await post({ extensions: { persistedQuery } })).toEqual([200, 'PERSISTED_QUERY_NOT_FOUND']);
    expect((await fetch(`${deployed.url}/readyz`)).status).toBe(200);
    // Log lines are written within 100 ms (src/logger.ts).
    await expect(deployed.process.waitFor(/"msg":"persisted query store failed"/, 5_000)).resolves.toBeTruthy();
  });

  it('writes its compile cache to the temporary directory, the emptyDir the Deployment mounts at /tmp', () => {
    expect(existsSync(join(deployed.tmp, 'node-compile-cache'))).toBe(true);
  });
});

// kubectl (with its built-in kustomize) is part of the CI machine's image (.ci/run); on a workstation
// without it the rendering checks are skipped with this message, never silently passed in CI.
const hasKubectl = spawnSync('kubectl', ['version', '--client'], { stdio: 'ignore' }).status === 0;
const withKubectl = hasKubectl || process.env.CI ? it : it.skip;
const KUBECTL = hasKubectl || process.env.CI ? '' : ' (skipped: kubectl is not installed; it renders the kustomizations offline)';
const DEPLOY_DIR = join(ROOT, 'deploy/kubernetes');
const OVERLAY = 'overlays/example';
/** docs/scaling.md's two commands: the cursor secret's file, then `kubectl apply -k` of the overlay. */
const [, secretStep, applied] = /```sh\n(echo "CURSOR_SECRET=[^\n]*)\nkubectl apply -k (\S+)\n```/.exec(readFileSync(join(ROOT, 'docs/scaling.md'), 'utf8'))!;

/**
 * `kubectl kustomize` of a kustomization in a copy of deploy/kubernetes (after docs/scaling.md's secret
 * command, run as written from the copy's root), its objects as manifests named after the kustomization.
 */
async function render(kustomization: string, edit?: (copy: string) => void): Promise<Manifest[]> {
  const root = mkdtempSync(join(tmpdir(), 'kustomize-'));
  const copy = join(root, 'deploy/kubernetes');
  try {
    cpSync(DEPLOY_DIR, copy, { recursive: true });
    rmSync(join(copy, OVERLAY, 'cursor-secret.env'), { force: true });
    execFileSync('bash', ['-c', secretStep!], { cwd: root });
    edit?.(copy);
    const rendered = execFileSync('kubectl', ['kustomize', join(copy, kustomization)], { encoding: 'utf8' });
    return parseAllDocuments(rendered).map((document, index) => {
      const object = document.toJS() as Json;
      // kubectl writes a long base64 value as a literal block, one line per 70 characters; the API
      // server's base64 decoder skips those line breaks, the schema's "byte" format does not.
      if (object.kind === 'Secret') for (const key of Object.keys(object.data ?? {})) object.data[key] = object.data[key].replace(/\n/g, '');
      return { file: kustomization, index, object };
    });
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

const kinds = (list: Manifest[]) => list.map((m) => `${m.object.kind}/${m.object.metadata.name}`).sort();

describe('the kustomizations, rendered by kubectl kustomize', () => {
  let base: Manifest[];
  let overlay: Manifest[];
  beforeAll(async () => {
    if (!hasKubectl && !process.env.CI) return;
    [base, overlay] = [await render('base'), await render(OVERLAY)];
  }, 60_000);

  it('list every manifest of the component and the overlay in their kustomizations', () => {
    for (const dir of ['components/monitoring', OVERLAY]) {
      const kustomization = readYaml(join(DEPLOY_DIR, dir, KUSTOMIZATION));
      const files = readdirSync(join(DEPLOY_DIR, dir)).filter((file) => /\.ya?ml$/.test(file) && file !== KUSTOMIZATION);
      expect([dir, kustomization.resources.filter((r: string) => !r.startsWith('..')).sort()]).toEqual([dir, files.sort()]);
    }
    expect(readYaml(join(DEPLOY_DIR, OVERLAY, KUSTOMIZATION))).toMatchObject({ resources: ['../../base', 'namespace.yaml', 'ingress.yaml'], components: ['../../components/monitoring'] });
  });

  it('apply the example overlay in docs/scaling.md, after writing its secret where the overlay reads it', () => {
    expect([applied, secretStep]).toEqual([`deploy/kubernetes/${OVERLAY}`, `echo "CURSOR_SECRET=$(openssl rand -base64 48)" > deploy/kubernetes/${OVERLAY}/cursor-secret.env`]);
    expect(readYaml(join(DEPLOY_DIR, OVERLAY, KUSTOMIZATION)).secretGenerator[0].envs).toEqual(['cursor-secret.env']);
  });

  withKubectl(`render objects that are each valid against the API schemas, the operator's included, with no unknown field${KUBECTL}`, async () => {
    expect(kinds(overlay).filter((k) => !kinds(base).includes(k)).map((k) => k.replace(/-[a-z0-9]{10}$/, '-<hash>'))).toEqual([
      'ConfigMap/platform-gateway-<hash>',
      'Ingress/platform-gateway',
      'Namespace/platform-gateway',
      'PrometheusRule/platform-gateway',
      'Secret/platform-gateway-cursor-<hash>',
      'Service/platform-gateway-admin',
      'ServiceMonitor/platform-gateway',
    ]);
    expect(await schemaProblems([...base, ...overlay])).toEqual([]);
    expect(unknownFields([...base, ...overlay])).toEqual([]);
  });

  withKubectl(`give the pods the settings through a ConfigMap named after its content, so a change rolls them${KUBECTL}`, async () => {
    const configMap = base.find((m) => m.object.kind === 'ConfigMap')!.object;
    expect(configMap.metadata.name).toMatch(/^platform-gateway-[a-z0-9]{10}$/);
    expect(configMap.data).toEqual(settings);
    const pods = (list: Manifest[]) => find(list, 'Deployment', 'platform-gateway').spec.template.spec.containers[0];
    expect(pods(base).envFrom).toEqual([{ configMapRef: { name: configMap.metadata.name } }]);
    const changed = await render(OVERLAY, (copy) => writeFileSync(join(copy, OVERLAY, 'settings.env'), `${readFileSync(join(copy, OVERLAY, 'settings.env'), 'utf8')}LOG_LEVEL=debug\n`));
    const [before, after] = [overlay, changed].map((list) => pods(list).envFrom[0].configMapRef.name as string);
    expect(before).not.toBe(after);
    expect(changed.find((m) => m.object.kind === 'ConfigMap')!.object.metadata.name).toBe(after);
  });

  withKubectl(`set the example environment: image, platform URL, trusted proxies, cursor secret, namespace${KUBECTL}`, async () => {
    const deployment = find(overlay, 'Deployment', 'platform-gateway');
    const gatewayContainer = deployment.spec.template.spec.containers[0];
    expect(gatewayContainer.image).toBe('registry.example.com/platform/platform-gateway:0.1.0');
    const configMap = overlay.find((m) => m.object.kind === 'ConfigMap')!.object;
    const overlaySettings = gatewaySettings(join(DEPLOY_DIR, OVERLAY, 'settings.env'));
    expect(Object.keys(overlaySettings)).toEqual(['UPSTREAM_URL', 'CORS_ORIGINS', 'TRUSTED_PROXIES']);
    expect(configMap.data).toEqual({ ...settings, ...overlaySettings });
    expect(overlaySettings.TRUSTED_PROXIES).toMatch(/^\d+\.\d+\.\d+\.\d+\/\d+$/);
    const secret = overlay.find((m) => m.object.kind === 'Secret')!.object;
    // Required: a pod does not start without it. The previous secret only during a rotation.
    expect(gatewayContainer.env).toEqual([
      { name: 'CURSOR_SECRET', valueFrom: { secretKeyRef: { name: secret.metadata.name, key: 'CURSOR_SECRET' } } },
      { name: 'CURSOR_SECRET_PREVIOUS', valueFrom: { secretKeyRef: { name: secret.metadata.name, key: 'CURSOR_SECRET_PREVIOUS', optional: true } } },
    ]);
    // What the documented step writes: a key the gateway accepts.
    const cursorSecret = Buffer.from(secret.data.CURSOR_SECRET, 'base64').toString();
    expect(loadConfig({ ...configMap.data, CURSOR_SECRET: cursorSecret }).paging.cursorSecret).toBe(cursorSecret);
    expect(cursorSecret).toHaveLength(64);
    const namespaces = new Set(overlay.filter((m) => m.object.kind !== 'Namespace').map((m) => m.object.metadata.namespace));
    expect([...namespaces]).toEqual(['platform-gateway']);
  });

  withKubectl(`route /graphql through the Ingress to the GraphQL Service, and nothing else${KUBECTL}`, async () => {
    const ingress = find(overlay, 'Ingress', 'platform-gateway');
    const service = find(overlay, 'Service', 'platform-gateway');
    expect(ingress.spec.rules).toEqual([
      { host: 'bff.example.com', http: { paths: [{ path: '/graphql', pathType: 'Exact', backend: { service: { name: service.metadata.name, port: { name: 'http' } } } }] } },
    ]);
    expect(service.spec.ports.map((p: Json) => p.name)).toEqual(['http']);
  });

  withKubectl(`scrape the admin port with the job name the rules select, and hold alerts.yml's rules${KUBECTL}`, async () => {
    const monitor = find(overlay, 'ServiceMonitor', 'platform-gateway');
    const adminService = find(overlay, 'Service', 'platform-gateway-admin');
    const pod = find(overlay, 'Deployment', 'platform-gateway').spec.template;
    expect(matches(monitor.spec.selector.matchLabels, adminService.metadata.labels)).toBe(true);
    expect(matches(find(overlay, 'Service', 'platform-gateway').metadata.labels, monitor.spec.selector.matchLabels)).toBe(false);
    expect(matches(adminService.spec.selector, pod.metadata.labels)).toBe(true);
    expect(adminService.spec).toMatchObject({ clusterIP: 'None', publishNotReadyAddresses: true, ports: [{ name: 'admin', port: 9090, targetPort: 'admin', protocol: 'TCP' }] });
    expect(monitor.spec.endpoints).toEqual([{ port: 'admin', path: '/metrics', interval: '15s' }]);
    const scrapeJob = readYaml(join(ROOT, 'deploy/prometheus/scrape-job.yml'));
    expect(adminService.metadata.labels[monitor.spec.jobLabel]).toBe(scrapeJob.job_name);
    expect(find(overlay, 'PrometheusRule', 'platform-gateway').spec.groups).toEqual(readYaml(join(ROOT, 'deploy/prometheus/alerts.yml')).groups);
  });
});
