/**
 * What one request log line costs the process, by the way its bytes reach the file: the gateway's
 * buffered writer (src/logger.ts's `bufferedDestination`, 8 kB pieces), smaller pieces, a write(2)
 * per line, and pino's serialising alone (a destination that drops the line). The same line as the
 * request plugin writes, through the gateway's own logger (`createLogger`), to a file; CPU per line (user + system,
 * every thread of this process) over blocks of lines, the ways taking turns block by block so that a
 * change in the machine's load falls on every way alike. Medians and quartiles of the blocks.
 *
 *   node --disable-warning=ExperimentalWarning bench/log-line-cost.ts [--rounds N] [--lines N] [--file PATH]
 */
import { mkdtempSync, openSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { readCommandLine } from '../src/settings/command-line.ts';
import { bufferedDestination, createLogger } from '../src/logger.ts';
import { median, percentile } from './lib/stats.ts';

const { values } = readCommandLine(
  { options: { rounds: { type: 'string', default: '40' }, lines: { type: 'string', default: '5000' }, file: { type: 'string' } } },
  {
    command: 'node bench/log-line-cost.ts',
    summary: 'CPU per request log line in a loop: the gateway\'s writer, smaller pieces, a write per line, serialising alone.',
    options: { rounds: { text: 'blocks of each way (the first five are warm-up)', value: 'N' }, lines: { text: 'lines per block', value: 'N' }, file: { text: 'where the lines go (a new temporary file by default; /dev/null leaves out the file system)', value: 'PATH' } },
    examples: ['node bench/log-line-cost.ts --rounds 20'],
  },
);
const rounds = Number(values.rounds);
const lines = Number(values.lines);
const folder = values.file === undefined ? mkdtempSync(path.join(tmpdir(), 'log-line-cost-')) : undefined;
const fd = openSync(values.file ?? path.join(folder!, 'lines.log'), 'w');

const logger = (destination: pino.DestinationStream) => createLogger('info', { destination });
const ways: Array<[string, pino.Logger]> = [
  ['the gateway (bufferedDestination: 8 kB pieces)', logger(bufferedDestination(fd))],
  ['1 kB gathered, 2 kB at most (minLength 1024, maxWrite 2048)', logger(pino.destination({ dest: fd, sync: false, minLength: 1024, maxWrite: 2048, periodicFlush: 100 }))],
  ['sync, 4 kB gathered (minLength 4096, maxWrite 8192)', logger(pino.destination({ dest: fd, sync: true, minLength: 4096, maxWrite: 8192, periodicFlush: 100 }))],
  ['a write(2) per line (sync)', logger(pino.destination({ dest: fd, sync: true }))],
  ['serialising only (no write)', logger({ write() {} })],
];
// The request plugin's line (src/observability/request-plugin.ts), a document read's.
const fields = () => ({
  requestId: '6f1c1a36-3c55-4b0f-9a4e-3c1f3e1f2a11', operationName: 'BenchDocument', operationType: 'query',
  durationMs: 1.3, outcome: 'ok', errorCodes: [], upstreamCalls: 1, httpStatus: 200,
});
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const perLine = new Map<string, number[]>(ways.map(([name]) => [name, []]));
for (let round = 0; round < rounds; round++) {
  for (const [name, log] of ways) {
    await pause(5);
    const before = process.cpuUsage();
    for (let line = 0; line < lines; line++) {
      log.info(fields(), 'graphql request');
      // Let the asynchronous writes run, as between requests.
      if (line % 50 === 0) await new Promise((resolve) => setImmediate(resolve));
    }
    await pause(2);
    const used = process.cpuUsage(before);
    if (round >= 5) perLine.get(name)!.push((used.user + used.system) / lines);
  }
}
console.log(`${rounds - 5} blocks of ${lines} lines per way, after five of warm-up\n`);
console.log('| way | CPU µs per line (median) | quartiles |');
console.log('|---|---|---|');
for (const [name, samples] of perLine) {
  console.log(`| ${name} | ${median(samples).toFixed(2)} | ${percentile(samples, 25).toFixed(2)} … ${percentile(samples, 75).toFixed(2)} |`);
}
if (folder) rmSync(folder, { recursive: true, force: true });
process.exit(0);
