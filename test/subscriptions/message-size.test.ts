import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import WebSocket from 'ws';
import { startProductionGateway, type ProductionGateway } from '../support/gateway-process.ts';

let gateway: ProductionGateway;

beforeAll(async () => {
  gateway = await startProductionGateway({ MAX_BODY_BYTES: '2048' });
});
afterAll(() => gateway.process.stop());

describe('graphql-ws messages in the production process', () => {
  // Before, `ws`' own default (100 MiB) held a message: eight connections without a token could hold 800 MiB.
  it('are held to MAX_BODY_BYTES whatever their type, before any token is checked: close 1009', async () => {
    const socket = new WebSocket(`${gateway.origin.replace('http', 'ws')}/graphql`, 'graphql-transport-ws');
    const closed = new Promise<number>((resolve) => socket.once('close', (code) => resolve(code)));
    await new Promise<void>((resolve) => socket.once('open', () => resolve()));
    socket.send(JSON.stringify({ type: 'connection_init', payload: { padding: 'x'.repeat(4096) } }));
    expect(await closed).toBe(1009);
  });
});
