import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { loadConfig } from '../../src/config.ts';
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
const settings = gatewaySettings(manifests);
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
  it('are the gateway, its settings, its Service, autoscaler and disruption budget, and Redis', () => {
    expect(manifests.map((m) => `${m.file} ${m.object.apiVersion} ${m.object.kind}/${m.object.metadata.name}`)).toEqual([
      'configmap.yaml v1 ConfigMap/platform-gateway',
      'deployment.yaml apps/v1 Deployment/platform-gateway',
      'hpa.yaml autoscaling/v2 HorizontalPodAutoscaler/platform-gateway',
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
    const url = new URL(settings.REDIS_URL!);
    expect([url.protocol, url.hostname, Number(url.port)]).toEqual(['redis:', redisService.metadata.name, redisService.spec.ports[0].port]);
    const policy = find(manifests, 'NetworkPolicy', 'platform-gateway-redis');
    expect(matches(policy.spec.podSelector.matchLabels, redisLabels)).toBe(true);
    expect(matches(policy.spec.ingress[0].from[0].podSelector.matchLabels, podLabels)).toBe(true);
    expect(policy.spec.ingress[0].ports).toEqual([{ port: redisPort.name, protocol: 'TCP' }]);
  });

  it('serve on the port the image and the gateway default to', () => {
    const imagePort = /^ENV .*\bPORT=(\d+)\b/m.exec(dockerfile)?.[1];
    const exposed = /^EXPOSE (\d+)$/m.exec(dockerfile)?.[1];
    const http = container.ports.find((p: Json) => p.name === 'http');
    expect([Number(imagePort), Number(exposed), loadConfig({}).port, Number(settings.PORT), http.containerPort]).toEqual([4000, 4000, 4000, 4000, 4000]);
    expect(settings.HOST).toBe('0.0.0.0');
    for (const probe of [container.startupProbe, container.livenessProbe, container.readinessProbe]) expect(probe.httpGet.port).toBe('http');
  });

  it('run every container as a non-root user on a read-only root file system, without privileges', () => {
    // The Dockerfile runs the gateway as the node image's `node` user, uid and gid 1000.
    expect(dockerfile).toMatch(/^USER node$/m);
    expect(gateway.spec.template.spec.securityContext).toMatchObject({ runAsNonRoot: true, runAsUser: 1000, runAsGroup: 1000 });
    for (const workload of [gateway, redis]) {
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
    // breaker at once (src/platform/http.ts), and the field answers before the request's deadline.
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
    const answers = await Promise.all(
      probes.map(async (path) => {
        const response = await fetch(`${deployed.url}${path}`);
        return [path, response.status, ((await response.json()) as { status: string }).status];
      }),
    );
    expect(answers).toEqual([
      ['/healthz', 200, 'ok'],
      ['/healthz', 200, 'ok'],
      ['/readyz', 200, 'ready'],
    ]);
    expect((await fetch(`${deployed.url}/livez`)).status).toBe(404);
  });

  it('serves queries while Redis is down: a persisted-query hash alone misses, the full query is answered', async () => {
    const query = '{ exceptions(first: 1) { totalCount } }';
    const persistedQuery = { version: 1, sha256Hash: createHash('sha256').update(query).digest('hex') };
    const post = async (body: Record<string, unknown>) => {
      const response = await fetch(`${deployed.url}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${deployed.sandbox.tokens[0]!.token}` },
        body: JSON.stringify(body),
      });
      const answer = (await response.json()) as Json;
      return [response.status, answer.errors?.[0]?.extensions?.code ?? answer.data?.exceptions?.totalCount];
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
