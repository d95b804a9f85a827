import { describe, expect, it } from '@jest/globals';
import { gatewaysOverSandbox } from '../support/gateways-over-sandbox.ts';
import { until } from '../support/time.ts';
import { graphql, logLines, send } from './support/http.ts';

// SHUTDOWN_DELAY_MS in the single-process gateway (WORKERS=1), as a load balancer sees it.

const gateways = gatewaysOverSandbox({ LOG_LEVEL: 'info' });

describe('SIGTERM with SHUTDOWN_DELAY_MS', () => {
  it('answers /readyz with 503 at once, keeps serving queries until the delay is over, then closes and exits 0', async () => {
    const started = await gateways.start({ SHUTDOWN_DELAY_MS: '1500' });
    const { origin, process: gateway } = started;
    // Probes go to the admin listener, as a load balancer's health checks do.
    const admin = started.admin!;
    const { store, tokens } = gateways.sandbox;
    const ids = store.exceptions(tokens[0]!.businessAccountId).slice(0, 2).map((r) => r.id);
    const expected = { data: { exceptions: { nodes: ids.map((id) => ({ id })) } } };
    const query = '{ exceptions(first: 2) { nodes { id } } }';
    expect((await send(`${admin}/readyz`)).status).toBe(200);

    gateway.child.kill('SIGTERM');
    await until('the shutting-down line', () => logLines(gateway.stdout()).find((l) => l.msg === 'shutting down'), 20_000);
    expect(logLines(gateway.stdout()).find((l) => l.msg === 'shutting down')).toMatchObject({ signal: 'SIGTERM', delayMs: 1500 });
    const ready = await send(`${admin}/readyz`);
    expect([ready.status, ready.json()]).toEqual([503, { status: 'unavailable', reason: 'shutting down', breaker: 'closed' }]);
    const during = await graphql(origin, query);
    expect([during.status, during.json()]).toEqual([200, expected]);
    // No 'stopped' yet: the listener is still open.
    expect(logLines(gateway.stdout()).some((l) => l.msg === 'stopped')).toBe(false);

    expect(await gateway.exited).toBe(0);
    expect(logLines(gateway.stdout()).filter((l) => l.msg === 'stopped')).toHaveLength(1);
    await expect(send(`${admin}/healthz`)).rejects.toMatchObject({ code: 'ECONNREFUSED' });
  }, 120_000);
});
