/**
 * What one platform call costs the calling process, by the way got is called: the gateway's
 * transport (src/platform/transport.ts: got's stream interface, the request's signal on one
 * listener of ours), got's promise interface given the request's signal (got's own abort handling),
 * and the design-card floor's client (bench/lib/bare-client.ts: the promise interface, one timer, no
 * signal). GETs of a 1 kB JSON answer over a keep-alive pool, 8 at a time, to a server in another
 * process; CPU per call (user + system) of this process, in alternating rounds so that a change in
 * the machine's load falls on every way alike.
 *
 *   node --disable-warning=ExperimentalWarning bench/got-call-cost.ts [--rounds N] [--calls N]
 */
import { fork } from 'node:child_process';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Got } from 'got';
import { fileURLToPath } from 'node:url';
import { readCommandLine } from '../src/settings/command-line.ts';
import { testConfig } from '../src/settings/config.ts';
import { PlatformTransport } from '../src/platform/transport.ts';
import { bareClient } from './lib/bare-client.ts';

const { values } = readCommandLine(
  { options: { rounds: { type: 'string', default: '10' }, calls: { type: 'string', default: '3000' }, server: { type: 'boolean', default: false } } },
  {
    command: 'node bench/got-call-cost.ts',
    summary: 'CPU per platform call of the gateway\'s transport, of got\'s promise interface with a signal, and of the floor\'s client.',
    options: { rounds: { text: 'alternating rounds of each way', value: 'N' }, calls: { text: 'calls per round', value: 'N' }, server: { text: 'run as the answering server (used by the benchmark itself)' } },
    examples: ['node bench/got-call-cost.ts --rounds 6'],
  },
);

if (values.server) {
  const body = JSON.stringify({ id: 'd'.repeat(36), name: 'n'.repeat(200), documentType: 'passport', status: 'ACTIVE', description: 'e'.repeat(600) });
  const server = http.createServer((_req, res) => {
    res.setHeader('content-type', 'application/json');
    res.end(body);
  });
  server.listen(0, '127.0.0.1', () => process.send!((server.address() as AddressInfo).port));
} else {
  const child = fork(fileURLToPath(import.meta.url), ['--server'], { execArgv: ['--disable-warning=ExperimentalWarning'] });
  const port = await new Promise<number>((resolve) => child.once('message', (message) => resolve(message as number)));
  const base = `http://127.0.0.1:${port}`;
  const path = '/v1/documents/d1';
  const headers = () => ({ 'x-request-id': 'bench' });
  const transport = new PlatformTransport(base, testConfig().upstream);
  const promiseGot = (transport as unknown as { got: Got }).got;
  const floor = bareClient();
  const signal = new AbortController().signal;

  const ways: Record<string, () => Promise<unknown>> = {
    'gateway transport (stream, our listener)': () =>
      transport.call({ route: 'documents', method: 'GET', pathAndQuery: path, authorization: 'Bearer t', signal, headers: headers(), callers: () => 1 }),
    'promise interface with the signal': () => promiseGot(base + path, { method: 'GET', headers: { ...headers(), authorization: 'Bearer t', accept: 'application/json' }, signal }),
    'floor client (promise, no signal)': () => floor(base + path, { headers: { ...headers(), authorization: 'Bearer t', accept: 'application/json' } }),
  };

  const round = async (call: () => Promise<unknown>, calls: number): Promise<number> => {
    const start = process.cpuUsage();
    let sent = 0;
    await Promise.all(Array.from({ length: 8 }, async () => {
      while (sent++ < calls) await call();
    }));
    const used = process.cpuUsage(start);
    return (used.user + used.system) / calls;
  };

  const calls = Number(values.calls);
  const figures: Record<string, number[]> = {};
  for (const call of Object.values(ways)) await round(call, calls);
  for (let index = 0; index < Number(values.rounds); index++) {
    for (const [name, call] of Object.entries(ways)) (figures[name] ??= []).push(await round(call, calls));
  }
  for (const [name, list] of Object.entries(figures)) {
    list.sort((a, b) => a - b);
    console.log(`${name.padEnd(44)} median ${list[Math.floor(list.length / 2)]!.toFixed(1)} µs per call (range ${list[0]!.toFixed(1)}–${list.at(-1)!.toFixed(1)})`);
  }
  transport.close();
  child.kill();
}
