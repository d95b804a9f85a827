/**
 * CPU time of one budget check as the gateway makes it for the cheapest request (src/budgets/: the
 * caller's bucket taken from, one platform call's worth), in memory and, given a Redis URL, in Redis
 * (the GCRA script), measured in this process with nothing else running in it. Prints one JSON line,
 * a RateLimitCheckCost (µs of CPU per check, user + system).
 *
 *   node --disable-warning=ExperimentalWarning bench/rate-limit-check.ts [--redis redis://127.0.0.1:6379] [--checks N]
 *
 * The benchmark runs it (bench/run.ts) beside the gateways measured with and without the limit:
 * the process figures include how an extra wait per request changes the gateway's batching of
 * socket work, this one is the check alone.
 */
import { MemoryBuckets, type BucketPolicy, type BucketStore } from '../src/budgets/bucket.ts';
import { RedisBuckets } from '../src/budgets/redis-buckets.ts';
import { createLogger } from '../src/logger.ts';
import type { RateLimitCheckCost } from './lib/results.ts';
import { readCommandLine } from '../src/settings/command-line.ts';

/** In memory a check is cheap: more of them, for a figure above the clock's resolution. */
const MEMORY_FACTOR = 5;
/** Checks in flight at once, as from the benchmark's 32 connections. */
const CONCURRENCY = 32;
const CALLERS = 1_000;
/** So high that nothing is refused: every check takes. */
const POLICY: BucketPolicy = { name: 'platform-calls', perSecond: 1_000_000, burst: 1_000_000 };

/** CPU per check, and how many checks Redis failed (each counted in memory instead). */
async function cpuPerCheck(redisUrl: string | undefined, checks: number): Promise<{ us: number; fallbacks: number }> {
  let fallbacks = 0;
  const memory = new MemoryBuckets(CALLERS * 2);
  const store: BucketStore = redisUrl === undefined ? memory : await RedisBuckets.connect({ url: redisUrl, timeoutMs: 1_000 }, memory, createLogger('silent'), { recordStoreFailure: () => void (fallbacks += 1) });
  const keys = Array.from({ length: CALLERS }, (_, i) => `token:bench-caller-${i}`);
  let next = 0;
  const worker = async () => {
    while (next < checks) await store.take(POLICY, keys[next++ % CALLERS]!, 1);
  };
  // Warm-up: JIT, the Redis connection and its script, the callers' keys.
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  next = 0;
  fallbacks = 0;
  const before = process.cpuUsage();
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  const used = process.cpuUsage(before);
  const measured = fallbacks;
  await store.close();
  return { us: (used.user + used.system) / checks, fallbacks: measured };
}

const { values } = readCommandLine(
  { options: { redis: { type: 'string' }, checks: { type: 'string', default: '20000' } } },
  {
    command: 'node bench/rate-limit-check.ts',
    summary: 'CPU time of one budget check for the cheapest request, in memory and, given a Redis URL, in Redis (the GCRA\nscript), measured in this process. Prints one JSON line (µs of CPU per check, user + system).',
    options: { redis: { text: 'also measure the check in this Redis', value: 'URL' }, checks: { text: 'checks measured in Redis (in memory: more)', value: 'N' } },
    examples: ['node bench/rate-limit-check.ts --redis redis://127.0.0.1:6379'],
  },
);
const checks = Number(values.checks);
const memory = await cpuPerCheck(undefined, checks * MEMORY_FACTOR);
const redis = values.redis === undefined ? undefined : await cpuPerCheck(values.redis, checks);
const result: RateLimitCheckCost = { checks, memoryChecks: checks * MEMORY_FACTOR, memoryUs: memory.us, ...(redis ? { redisUs: redis.us, redisFallbacks: redis.fallbacks } : {}) };
process.stdout.write(`${JSON.stringify(result)}\n`);
