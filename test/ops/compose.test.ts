import { execFile, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from '@jest/globals';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

// CI installs docker-compose (.ci/run); on a workstation without it the check is skipped, never silently passed in CI.
const installed = spawnSync('docker-compose', ['version'], { stdio: 'ignore' }).error === undefined;
const run = installed || process.env.CI ? it : it.skip;
const SUFFIX = installed || process.env.CI ? '' : ' (skipped: docker-compose is not installed; apt-get install -y --no-install-recommends docker-compose)';

function compose(args: string[], env: Record<string, string> = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile('docker-compose', ['-f', 'docker-compose.yml', ...args], { cwd: ROOT, env: { ...process.env, ...env } }, (error, stdout, stderr) => {
      const code = error ? (typeof error.code === 'number' ? error.code : 127) : 0;
      resolve({ code, stdout, stderr });
    });
  });
}

describe('docker-compose.yml', () => {
  run(`is accepted by docker-compose 1.29${SUFFIX}`, async () => {
    const result = await compose(['config', '-q']);
    expect(result).toEqual({ code: 0, stdout: '', stderr: '' });
  });

  run(`defines the sandbox and gateway, and redis only under its profile${SUFFIX}`, async () => {
    const services = await compose(['config', '--services']);
    expect(services.code).toBe(0);
    expect(services.stdout.trim().split('\n').sort()).toEqual(['budget-redis', 'gateway', 'gateway-1', 'gateway-2', 'gateway-3', 'haproxy', 'redis', 'sandbox']);

    const resolved = await compose(['config'], { REDIS_URL: 'redis://redis:6379' });
    expect(resolved.code).toBe(0);
    expect(resolved.stdout).toContain('UPSTREAM_URL: http://sandbox:4010');
    expect(resolved.stdout).toContain('REDIS_URL: redis://redis:6379');
    expect(resolved.stdout).toMatch(/redis:\n(?:\s+.*\n)*?\s+profiles:\n\s+- redis\n/);
    expect(resolved.stdout).toMatch(/condition: service_healthy/);
  });

  run(`runs three gateway replicas behind HAProxy under the replicas profile, with Redis and a pre-stop delay${SUFFIX}`, async () => {
    const resolved = await compose(['--profile', 'replicas', 'config']);
    expect(resolved.code).toBe(0);
    const { parse } = await import('yaml');
    const services = (parse(resolved.stdout) as { services: Record<string, Record<string, unknown>> }).services;
    for (const name of ['gateway-1', 'gateway-2', 'gateway-3']) {
      expect(services[name]).toMatchObject({
        profiles: ['replicas'],
        environment: {
          UPSTREAM_URL: 'http://sandbox:4010',
          REDIS_URL: 'redis://redis:6379',
          RATE_LIMIT_REDIS_URL: 'redis://budget-redis:6379',
          ADMIN_HOST: '0.0.0.0',
          ADMIN_PORT: '9090',
          TRUSTED_PROXIES: '172.30.0.10/32',
          CURSOR_SECRET: 'local-replicas-only-cursor-secret-0123456789',
          PORT: '4000',
          WORKERS: '1',
          SHUTDOWN_DELAY_MS: '5000',
          SHUTDOWN_TIMEOUT_MS: '10000',
        },
        depends_on: { sandbox: { condition: 'service_healthy' }, redis: { condition: 'service_healthy' }, 'budget-redis': { condition: 'service_healthy' } },
        stop_grace_period: '20s',
      });
    }
    expect(services.haproxy).toMatchObject({
      profiles: ['replicas'],
      volumes: [expect.stringMatching(/\/deploy\/haproxy\/haproxy\.cfg:\/usr\/local\/etc\/haproxy\/haproxy\.cfg:ro$/)],
      depends_on: { 'gateway-1': expect.any(Object), 'gateway-2': expect.any(Object), 'gateway-3': expect.any(Object) },
    });
    expect(services.redis?.profiles).toEqual(['redis', 'replicas']);
    expect(services['budget-redis']?.profiles).toEqual(['replicas']);
    // Persisted queries may be evicted; budgets never are.
    const policy = (name: string) => {
      const command = services[name]!.command as string[];
      return command[command.indexOf('--maxmemory-policy') + 1];
    };
    expect([policy('redis'), policy('budget-redis')]).toEqual(['allkeys-lru', 'noeviction']);
    // The address the replicas trust is HAProxy's, fixed inside the network's subnet.
    expect(services.haproxy!.networks).toEqual({ default: { ipv4_address: '172.30.0.10' } });
    const networks = (parse(resolved.stdout) as { networks: Record<string, { ipam: { config: { subnet: string }[] } }> }).networks;
    expect(networks.default!.ipam.config).toEqual([{ subnet: '172.30.0.0/24' }]);
    // Health checks ask the admin listener, for the replicas and the single gateway alike.
    const adminCheck = ['CMD', 'node', '-e', "fetch('http://127.0.0.1:9090/healthz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"];
    for (const name of ['gateway', 'gateway-1', 'gateway-2', 'gateway-3']) expect([name, services[name]!.healthcheck]).toEqual([name, { test: adminCheck, interval: '15s', timeout: '3s', retries: 3, start_period: '20s' }]);
    expect(services.gateway!.environment).toMatchObject({ ADMIN_HOST: '0.0.0.0', ADMIN_PORT: '9090' });
    // HAProxy's defaults name the replicas as compose does, on the port they listen on.
    const cfg = readFileSync(new URL('../../deploy/haproxy/haproxy.cfg', import.meta.url), 'utf8');
    for (const n of [1, 2, 3]) expect(cfg).toContain(`presetenv GATEWAY_${n} "gateway-${n}:4000"`);
    expect(cfg).toMatch(/option httpchk GET \/readyz/);
  });

  /** Every published port of the resolved file, as docker-compose 1.29 prints it (host address:published:target/protocol). */
  const published = async (env: Record<string, string>) => {
    const resolved = await compose(['--profile', 'replicas', 'config'], env);
    expect(resolved.code).toBe(0);
    const { parse } = await import('yaml');
    const services = (parse(resolved.stdout) as { services: Record<string, { ports?: string[] }> }).services;
    return Object.entries(services)
      .flatMap(([name, service]) => (service.ports ?? []).map((port) => `${name} ${port}`))
      .sort();
  };

  run(`publishes ports on loopback only, unless PUBLISH_HOST says otherwise${SUFFIX}`, async () => {
    expect(await published({})).toEqual([
      'gateway 127.0.0.1:4000:4000/tcp',
      'haproxy 127.0.0.1:4100:4000/tcp',
      'haproxy 127.0.0.1:8404:8404/tcp',
      'sandbox 127.0.0.1:4010:4010/tcp',
      'sandbox 127.0.0.1:4011:4011/tcp',
    ]);
    // HAProxy's stats page stays on loopback.
    expect(await published({ PUBLISH_HOST: '0.0.0.0' })).toEqual([
      'gateway 0.0.0.0:4000:4000/tcp',
      'haproxy 0.0.0.0:4100:4000/tcp',
      'haproxy 127.0.0.1:8404:8404/tcp',
      'sandbox 0.0.0.0:4010:4010/tcp',
      'sandbox 0.0.0.0:4011:4011/tcp',
    ]);
  });
});
