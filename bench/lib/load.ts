/**
 * One autocannon run with every response validated and its latency kept as
 * an exact sample (per call label), so that percentiles below a millisecond
 * mean something.
 */
import autocannon from 'autocannon';
import { SampleBuffer } from './stats.ts';
import type { HttpCall } from './workloads.ts';

export interface LoadSpec {
  /** Origin of the target, e.g. http://127.0.0.1:4600. */
  origin: string;
  calls: HttpCall[];
  connections: number;
  durationS: number;
  /** Requests per second across all connections; unlimited when absent. */
  overallRate?: number;
}

export interface LoadResult {
  durationS: number;
  /** Requests written, answered or not (the run ends with requests in flight). */
  sent: number;
  /** Responses that passed validation. */
  valid: number;
  /** Invalid responses plus connection errors and timeouts. */
  failures: number;
  /** Distinct failure reasons with their counts, the first few only. */
  failureReasons: Map<string, number>;
  /** Latencies (ms) of valid responses, per call label. */
  latencyByLabel: Map<string, Float64Array>;
}

const MAX_REASONS = 5;

export function runLoad(spec: LoadSpec): Promise<LoadResult> {
  const buffers = new Map<string, SampleBuffer>(spec.calls.map((call) => [call.label, new SampleBuffer()]));
  const failureReasons = new Map<string, number>();
  let valid = 0;
  let failures = 0;
  // With a fixed rate, autocannon's own `requests.sent` also counts the requests its rate limit held
  // back and never wrote (about a third more than the server received, at 300/s over 32 connections):
  // the requests written are counted as autocannon builds each one instead.
  let written = 0;
  const paced = spec.overallRate !== undefined;
  // autocannon calls a request's onResponse and then, synchronously, emits the
  // 'response' event with the latency: these two carry the verdict across.
  let lastLabel = '';
  let lastValid = false;

  const fail = (reason: string, count = 1): void => {
    failures += count;
    const known = failureReasons.get(reason);
    if (known !== undefined) failureReasons.set(reason, known + count);
    else if (failureReasons.size < MAX_REASONS) failureReasons.set(reason, count);
  };

  return new Promise((resolve, reject) => {
    const instance = autocannon(
      {
        url: spec.origin,
        connections: spec.connections,
        duration: spec.durationS,
        // autocannon stops at its next sample tick: 100 ms keeps short runs close to their duration.
        sampleInt: 100,
        ...(spec.overallRate === undefined ? {} : { overallRate: spec.overallRate }),
        timeout: 10,
        requests: spec.calls.map((call) => ({
          method: call.method,
          path: call.path,
          headers: call.headers,
          ...(call.body === undefined ? {} : { body: call.body }),
          ...(paced ? { setupRequest: (request: Record<string, unknown>) => ((written += 1), request) } : {}),
          onResponse: (status: number, body: string) => {
            const problem = call.validate(status, body);
            lastLabel = call.label;
            lastValid = problem === undefined;
            if (problem === undefined) valid += 1;
            else fail(`${call.label}: ${problem}`);
          },
        })),
      },
      (error, result) => {
        if (error) return reject(error);
        if (result.errors > 0) fail(`connection errors (${result.timeouts} of them timeouts)`, result.errors);
        resolve({
          durationS: result.duration,
          sent: paced ? written : result.requests.sent,
          valid,
          failures,
          failureReasons,
          latencyByLabel: new Map([...buffers].map(([label, buffer]) => [label, buffer.values()])),
        });
      },
    );
    instance.on('response', (_client: unknown, _status: number, _bytes: number, responseTimeMs: number) => {
      if (lastValid) buffers.get(lastLabel)?.push(responseTimeMs);
      lastValid = false;
    });
  });
}
