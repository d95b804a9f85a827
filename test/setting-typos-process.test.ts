import { afterEach, describe, expect, it } from '@jest/globals';
import { startProductionGateway, type ProductionGateway } from './support/gateway-process.ts';

// The gateway process as it starts with a guessed setting name: one warning line per variable on
// stderr, naming the setting meant, and the gateway serving as it would without them.

let gateway: ProductionGateway | undefined;
afterEach(async () => {
  await gateway?.process.stop();
  gateway = undefined;
});

const warning = (name: string, setting: string) =>
  `Warning: ${name} is not a setting of this gateway and is ignored: did you mean ${setting}? (npm start -- --help lists the settings)\n`;

describe('a guessed setting name at start-up', () => {
  it('RATE_LIMIT=20 and RATE_LIMT=20 each warn naming RATE_LIMIT_PER_SECOND, the setting that turns the budgets on', async () => {
    gateway = await startProductionGateway({ RATE_LIMIT: '20', RATE_LIMT: '20', UPSTREAM: 'https://platform.example.com' });
    expect(gateway.process.stderr()).toBe(warning('RATE_LIMIT', 'RATE_LIMIT_PER_SECOND') + warning('RATE_LIMT', 'RATE_LIMIT_PER_SECOND') + warning('UPSTREAM', 'UPSTREAM_URL'));
  }, 60_000);
});
