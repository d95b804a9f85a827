import { execFile, spawnSync } from 'node:child_process';
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
    expect(services.stdout.trim().split('\n').sort()).toEqual(['gateway', 'redis', 'sandbox']);

    const resolved = await compose(['config'], { REDIS_URL: 'redis://redis:6379' });
    expect(resolved.code).toBe(0);
    expect(resolved.stdout).toContain('UPSTREAM_URL: http://sandbox:4010');
    expect(resolved.stdout).toContain('REDIS_URL: redis://redis:6379');
    expect(resolved.stdout).toMatch(/redis:\n(?:\s+.*\n)*?\s+profiles:\n\s+- redis\n/);
    expect(resolved.stdout).toMatch(/condition: service_healthy/);
  });
});
