import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { hasHaproxy, hasRedis, startReplicaSet, type ReplicaSet } from '../../scripts/replica-set.ts';
import { watchOutput } from '../support/gateway-process.ts';
import { bearer, postJson, withoutCost } from '../support/graphql-client.ts';
import { sleep, until } from '../support/time.ts';
import { graphql } from './support/http.ts';

// Three real gateway processes over one platform sandbox and Redis, behind a real HAProxy running
// deploy/haproxy/haproxy.cfg as shipped (its server lines set to the loopback gateways), under steady
// load through HAProxy: the set `npm run replicas` starts (scripts/replica-set.ts).

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

// CI installs both (.ci/run); on a workstation without them the test is skipped, never silently passed in CI.
const installed = hasHaproxy && hasRedis;
const describeStack = installed || process.env.CI ? describe : describe.skip;
const SUFFIX = installed || process.env.CI ? '' : ` (skipped: ${[hasHaproxy ? '' : 'haproxy', hasRedis ? '' : 'redis-server'].filter(Boolean).join(' and ')} not installed; apt-get install -y --no-install-recommends haproxy redis-server)`;

const CHECK_INTERVAL_MS = 200;
/** Longer than HAProxy's fall (2) × check interval, with room for a slow check on a busy machine. */
const SHUTDOWN_DELAY_MS = 1_500;
/** Concurrent request loops of the load; each has at most one request in flight. */
const CONCURRENCY = 4;
const QUERY = 'query Steady { exceptions(first: 2) { nodes { id status } } }';

interface LoadReport {
  requests: number;
  failures: { at: number; reason: string }[];
  longestGapMs: number;
}

/**
 * Steady load through HAProxy: CONCURRENCY loops, each sending the query, validating the answer
 * (HTTP 200, no `errors`, the expected data) and pausing briefly. Bounded by `maxRequests`.
 */
function startLoad(url: string, expected: unknown, maxRequests = 20_000) {
  let stopped = false;
  let requests = 0;
  let successes = 0;
  let lastSuccess = performance.now();
  let longestGapMs = 0;
  const failures: { at: number; reason: string }[] = [];
  const loop = async () => {
    while (!stopped && requests < maxRequests) {
      requests++;
      let reason: string | undefined;
      try {
        const response = await postJson(url, { query: QUERY }, bearer('demo-token-acme'));
        const text = await response.text();
        if (response.status !== 200) reason = `HTTP ${response.status}: ${text.slice(0, 120)}`;
        else if (JSON.stringify(withoutCost(JSON.parse(text))) !== JSON.stringify(expected)) reason = `unexpected answer: ${text.slice(0, 200)}`;
      } catch (error) {
        reason = `${(error as Error).message}${(error as { cause?: Error }).cause ? `: ${(error as { cause: Error }).cause.message}` : ''}`;
      }
      const now = performance.now();
      if (reason === undefined) {
        successes++;
        longestGapMs = Math.max(longestGapMs, now - lastSuccess);
        lastSuccess = now;
      } else failures.push({ at: now, reason });
      await sleep(5);
    }
  };
  const loops = Array.from({ length: CONCURRENCY }, loop);
  return {
    successes: () => successes,
    /** Resolves once `count` more requests have succeeded. */
    async more(count: number, timeoutMs = 20_000) {
      const target = successes + count;
      await until(`${count} more successful requests`, () => (successes >= target ? true : undefined), timeoutMs);
    },
    async stop(): Promise<LoadReport> {
      stopped = true;
      await Promise.all(loops);
      return { requests, failures, longestGapMs };
    },
  };
}

function report(label: string, load: LoadReport, extra = ''): void {
  console.log(`${label}: ${load.requests} requests, ${load.failures.length} failed, longest gap between successful answers ${load.longestGapMs.toFixed(0)} ms${extra}${load.failures.length ? `; failures: ${[...new Set(load.failures.map((f) => f.reason))].join(' | ')}` : ''}`);
}

describeStack(`three gateway replicas behind HAProxy, sharing one platform and one Redis${SUFFIX}`, () => {
  let set: ReplicaSet;
  let expected: unknown;

  const replicaUrl = (index: number) => set.gateways[index]!.url;
  const state = async (index: number) => (await set.states())[`gateway-${index + 1}`];

  beforeAll(async () => {
    set = await startReplicaSet({ replicas: 3, checkIntervalMs: CHECK_INTERVAL_MS, shutdownDelayMs: SHUTDOWN_DELAY_MS, env: { LOG_LEVEL: 'warn', SHUTDOWN_TIMEOUT_MS: '8000' } });
    // startReplicaSet resolves once HAProxy sees every replica UP.
    expect(await set.states()).toEqual({ 'gateway-1': 'UP', 'gateway-2': 'UP', 'gateway-3': 'UP' });

    const first = await graphql(replicaUrl(0), QUERY);
    expect(first.status).toBe(200);
    expected = first.json();
    expect(expected).toEqual({ data: { exceptions: { nodes: [expect.objectContaining({ id: expect.any(String) }), expect.objectContaining({ id: expect.any(String) })] } } });
  }, 90_000);

  afterAll(async () => {
    await set?.stop();
  });

  it('runs an automatic persisted query registered on one replica on another', async () => {
    const query = 'query SharedThroughRedis { exceptions(first: 1) { totalCount } }';
    const { createHash } = await import('node:crypto');
    const persisted = { persistedQuery: { version: 1, sha256Hash: createHash('sha256').update(query).digest('hex') } };
    const unknown = await graphql(replicaUrl(2), undefined, {}, persisted).then((a) => a.json());
    expect(unknown.errors?.[0]?.extensions?.code).toBe('PERSISTED_QUERY_NOT_FOUND');

    const registered = await graphql(replicaUrl(0), query, {}, persisted);
    expect([registered.status, registered.json().errors]).toEqual([200, undefined]);
    // Registration is written after the answer is sent: the other replica may need a moment.
    const byHash = await until('the hash known on another replica', async () => {
      const answer = (await graphql(replicaUrl(1), undefined, {}, persisted)).json();
      return answer.errors ? undefined : answer;
    }, 5_000);
    expect(byHash).toEqual(registered.json());
  }, 120_000);

  it('rolls a restart through every replica under load with no failed request', async () => {
    const load = startLoad(set.graphqlUrl, expected);
    await load.more(50);
    const downBeforeExit: boolean[] = [];
    for (const index of [0, 1, 2]) {
      const old = set.gateways[index]!.process;
      old.child.kill('SIGTERM');
      // HAProxy sees /readyz answer 503 and takes the replica out while it still serves.
      await until(`gateway-${index + 1} DOWN`, async () => ((await state(index))?.startsWith('DOWN') ? true : undefined), 10_000, 25);
      downBeforeExit.push(old.child.exitCode === null);
      expect(await old.exited).toBe(0);
      await set.startGateway(index);
      await until(`gateway-${index + 1} UP again`, async () => ((await state(index)) === 'UP' ? true : undefined), 20_000, 50);
      await load.more(20);
    }
    await load.more(50);
    const result = await load.stop();
    report('rolling restart', result);
    expect(downBeforeExit).toEqual([true, true, true]);
    expect(result.failures).toEqual([]);
    expect(result.requests).toBeGreaterThan(200);
  }, 120_000);

  it('loses at most the requests in flight on a replica killed with SIGKILL; HAProxy takes it out and the rest succeed', async () => {
    const load = startLoad(set.graphqlUrl, expected);
    await load.more(50);
    const killedAt = performance.now();
    set.gateways[0]!.process.child.kill('SIGKILL');
    await until('gateway-1 DOWN', async () => ((await state(0))?.startsWith('DOWN') ? true : undefined), 10_000, 25);
    const downAt = performance.now();
    await load.more(200);
    const result = await load.stop();
    report('replica killed', result, `; HAProxy marked it DOWN ${(downAt - killedAt).toFixed(0)} ms after the kill (checks every ${CHECK_INTERVAL_MS} ms, fall 2)`);
    // Each load loop has at most one request in flight: only those on the killed replica may fail,
    // and none once it is DOWN. HAProxy answers such a request with a 502 or, when it came on a
    // reused connection to the replica, closes the client's connection without an answer.
    expect(result.failures.length).toBeLessThanOrEqual(CONCURRENCY);
    for (const failure of result.failures) {
      expect(failure.reason).toMatch(/^(HTTP 502|fetch failed: other side closed)/);
      expect(failure.at).toBeLessThan(downAt);
    }
    expect(await set.gateways[0]!.process.exited).toBeNull();
  }, 120_000);
});

describeStack(`npm run replicas${SUFFIX}`, () => {
  let npm: ChildProcess | undefined;
  afterEach(() => {
    // Its own process group: nothing it started outlives the test.
    if (npm?.pid !== undefined && npm.exitCode === null) {
      try {
        process.kill(-npm.pid, 'SIGKILL');
      } catch {
        // Already gone.
      }
    }
  });

  it('prints where everything is, serves through HAProxy, and stops everything on Ctrl-C (SIGINT) with exit code 0', async () => {
    const { NODE_OPTIONS: _jestOptions, ...env } = process.env;
    npm = spawn('npm', ['run', 'replicas', '--', '--replicas', '2'], { cwd: ROOT, detached: true, env: { ...env, LOG_LEVEL: 'warn' }, stdio: ['ignore', 'pipe', 'pipe'] });
    const exited = new Promise<number | null>((resolve) => npm!.once('exit', (code) => resolve(code)));
    const stdout = watchOutput(npm.stdout!, exited);
    const stderr = watchOutput(npm.stderr!);
    await stdout.waitFor(/^Ctrl-C stops everything\.$/m, 90_000);
    const text = stdout.text();
    const front = /^GraphQL \(HAProxy, 2 gateways\): (http:\/\/127\.0\.0\.1:\d+\/graphql)$/m.exec(text)?.[1];
    const gateways = [...text.matchAll(/^ {2}gateway-(\d): (http:\/\/127\.0\.0\.1:\d+)\/graphql {2}admin (http:\/\/127\.0\.0\.1:\d+) \(health checks: GET \/readyz every 1000 ms\)$/gm)];
    expect(gateways.map((m) => m[1])).toEqual(['1', '2']);
    expect(text).toMatch(/^Redis: persisted queries redis:\/\/127\.0\.0\.1:\d+ \(allkeys-lru, REDIS_URL\), rate budgets redis:\/\/127\.0\.0\.1:\d+ \(noeviction, RATE_LIMIT_REDIS_URL\)$/m);
    expect(text).toContain('Shared by every gateway: CURSOR_SECRET, SHUTDOWN_DELAY_MS=3000, TRUSTED_PROXIES=127.0.0.1/32\n');

    const answer = await graphql(front!.replace(/\/graphql$/, ''), 'query Count { exceptions(first: 1) { totalCount } }');
    expect([answer.status, answer.json()]).toEqual([200, { data: { exceptions: { totalCount: 300 } } }]);
    // Health checks go to the admin listeners: each answers /readyz there.
    for (const [, , , admin] of gateways) expect((await fetch(`${admin}/readyz`)).status).toBe(200);

    process.kill(npm.pid!, 'SIGINT');
    expect(await exited).toBe(0);
    expect(stderr.text()).toBe('');
    // Every listener it started is closed.
    for (const url of [front!, ...gateways.flatMap(([, , url, admin]) => [url!, admin!])]) {
      await expect(fetch(url)).rejects.toThrow('fetch failed');
    }
  }, 120_000);

  it("stops cleanly on a terminal's Ctrl-C, which signals every process of the foreground group: no gateway loses its Redis while it drains", async () => {
    const { NODE_OPTIONS: _jestOptions, ...env } = process.env;
    npm = spawn('npm', ['run', 'replicas', '--', '--replicas', '2'], { cwd: ROOT, detached: true, env: { ...env, LOG_LEVEL: 'warn' }, stdio: ['ignore', 'pipe', 'pipe'] });
    const exited = new Promise<number | null>((resolve) => npm!.once('exit', (code) => resolve(code)));
    const stdout = watchOutput(npm.stdout!, exited);
    const stderr = watchOutput(npm.stderr!);
    await stdout.waitFor(/^Ctrl-C stops everything\.$/m, 90_000);
    const before = stdout.text().length;
    // As a terminal does: the signal goes to the group npm leads, every process started in it included.
    process.kill(-npm.pid!, 'SIGINT');
    expect({ code: await exited, after: stdout.text().slice(before), stderr: stderr.text() }).toEqual({
      code: 0,
      after: 'SIGINT: stopping HAProxy, the gateways (each drains for 3000 ms), Redis and the sandbox\n',
      stderr: '',
    });
  }, 120_000);
});
