import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { startProductionGateway, type GatewayProcess } from '../support/gateway-process.ts';
import { until } from '../support/time.ts';
import { graphql, logLines } from './support/http.ts';

// WORKERS=2 without Redis: the caller's rate budget is one for the process group, counted by the
// primary, not one per worker.

const BURST = 6;

describe('the per-caller rate limit across the workers of one instance', () => {
  let group: GatewayProcess;
  let origin: string;

  beforeAll(async () => {
    ({ process: group, origin } = await startProductionGateway(
      {
        WORKERS: '2',
        LOG_LEVEL: 'info',
        // A window of BURST / 0.01 = 600 s: no budget comes back while the test runs, however slowly a
        // busy machine serves its eight requests (at 0.1, one came back after 10 s with four test files
        // running at once on two cores).
        RATE_LIMIT_PER_SECOND: '0.01',
        RATE_LIMIT_BURST: String(BURST),
      },
      40_000,
    ));
    await until('the workers-started line', () => logLines(group.stdout()).find((line) => line.msg === 'workers started'), 20_000);
  }, 120_000);
  afterAll(async () => {
    await group?.stop();
  });

  it('refuses the request past the burst, whichever worker it reaches, after both workers served', async () => {
    const statuses: number[] = [];
    const ids = Array.from({ length: BURST + 2 }, (_, n) => `group-budget-${n}`);
    // One connection per request, one after another: node:cluster hands them to the workers in turn.
    for (const id of ids) statuses.push((await graphql(origin, '{ __typename }', { 'x-request-id': id })).status);
    expect(statuses).toEqual([...Array<number>(BURST).fill(200), 429, 429]);

    const served = await until(
      'the served requests logged',
      () => {
        const lines = logLines(group.stdout()).filter((line) => line.msg === 'graphql request' && ids.slice(0, BURST).includes(line.requestId as string));
        return lines.length === BURST ? lines : undefined;
      },
      5_000,
    );
    expect(new Set(served.map((line) => line.pid)).size).toBe(2);
  });
});
