import { afterEach, describe, expect, it } from '@jest/globals';
import { startStack, type Stack } from '../support/stack.ts';

const INBOX = 'query Inbox { exceptions(first: 2) { nodes { id } } }';

/** Samples of the exposition text: `name{labels}` → value. */
async function scrape(stack: Stack): Promise<{ contentType: string | null; text: string; samples: Map<string, number> }> {
  const response = await fetch(`${stack.gateway.url}/metrics`);
  expect(response.status).toBe(200);
  const text = await response.text();
  const samples = new Map<string, number>();
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const cut = line.lastIndexOf(' ');
    samples.set(line.slice(0, cut), Number(line.slice(cut + 1)));
  }
  return { contentType: response.headers.get('content-type'), text, samples };
}

const stacks: Stack[] = [];
afterEach(async () => {
  await Promise.all(stacks.splice(0).map((s) => s.close()));
});

async function stack(env: Record<string, string>): Promise<Stack> {
  const s = await startStack(env);
  stacks.push(s);
  return s;
}

describe('GET /metrics', () => {
  it('counts GraphQL requests and platform calls with their labels, retries and breaker state', async () => {
    const s = await stack({ UPSTREAM_RETRY_LIMIT: '1', UPSTREAM_RETRY_BASE_MS: '1' });
    s.sandbox.resetRequests();
    // Two clean requests, one that succeeds on its retry, one that fails on both attempts.
    for (let i = 0; i < 2; i++) expect((await s.gql(INBOX)).body.errors).toBeUndefined();
    s.sandbox.faults.set('exceptions', { status: 503, times: 1 });
    expect((await s.gql(INBOX)).body.errors).toBeUndefined();
    s.sandbox.faults.set('exceptions', { status: 503 });
    expect((await s.gql(INBOX)).body.errors?.[0]?.extensions?.code).toBe('UPSTREAM_ERROR');
    s.sandbox.faults.clear();
    await s.gql('{ document(id: "00000000-0000-4000-8000-000000000000") { id } }');
    await s.gql('{ exceptions(first: 1) { nodes { nope } } }');
    expect(s.platformCalls()).toHaveLength(7);

    const { contentType, text, samples } = await scrape(s);
    expect(contentType).toMatch(/^text\/plain; version=0\.0\.4/);

    expect(samples.get('graphql_requests_total{operation="Inbox",outcome="ok"}')).toBe(3);
    expect(samples.get('graphql_requests_total{operation="Inbox",outcome="UPSTREAM_ERROR"}')).toBe(1);
    expect(samples.get('graphql_requests_total{operation="anonymous",outcome="NOT_FOUND"}')).toBe(1);
    expect(samples.get('graphql_requests_total{operation="unresolved",outcome="GRAPHQL_VALIDATION_FAILED"}')).toBe(1);
    expect(samples.get('graphql_request_duration_seconds_count{operation="Inbox"}')).toBe(4);
    expect(samples.get('graphql_request_duration_seconds_sum{operation="Inbox"}')).toBeGreaterThan(0);
    expect(samples.get('graphql_request_duration_seconds_bucket{le="+Inf",operation="Inbox"}')).toBe(4);

    expect(samples.get('upstream_requests_total{route="exceptions.list",method="GET",status="200"}')).toBe(3);
    expect(samples.get('upstream_requests_total{route="exceptions.list",method="GET",status="503"}')).toBe(1);
    expect(samples.get('upstream_requests_total{route="documents.get",method="GET",status="404"}')).toBe(1);
    expect(samples.get('upstream_request_duration_seconds_count{route="exceptions.list"}')).toBe(4);
    expect(samples.get('upstream_request_duration_seconds_count{route="documents.get"}')).toBe(1);
    expect(samples.get('upstream_retries_total{route="exceptions.list"}')).toBe(2);
    expect(samples.has('upstream_retries_total{route="documents.get"}')).toBe(false);
    expect(samples.get('upstream_breaker_state')).toBe(0);
    // Sequential requests reuse one keep-alive socket, idle between requests.
    expect([samples.get('upstream_sockets{state="active"}'), samples.get('upstream_sockets{state="idle"}')]).toEqual([0, 1]);

    // Default process metrics, from this gateway's own registry.
    expect(samples.get('process_cpu_user_seconds_total')).toBeGreaterThan(0);
    expect(samples.get('nodejs_heap_size_used_bytes')).toBeGreaterThan(0);
    expect(text).toContain('# TYPE graphql_request_duration_seconds histogram');
    expect(text).toContain('# TYPE upstream_breaker_state gauge');
  });

  it('shows an open breaker as 2, and keeps each gateway instance’s series apart', async () => {
    const quiet = await stack({});
    const failing = await stack({ UPSTREAM_RETRY_LIMIT: '0', UPSTREAM_BREAKER_THRESHOLD: '1', UPSTREAM_BREAKER_COOLDOWN_MS: '60000' });
    failing.sandbox.faults.set('exceptions', { status: 500 });
    expect((await failing.gql(INBOX)).body.errors?.[0]?.extensions?.code).toBe('UPSTREAM_ERROR');
    // Now failing fast: no platform call is made.
    failing.sandbox.resetRequests();
    expect((await failing.gql(INBOX)).body.errors?.[0]?.extensions?.code).toBe('UPSTREAM_ERROR');
    expect(failing.platformCalls()).toHaveLength(0);

    const open = await scrape(failing);
    expect(open.samples.get('upstream_breaker_state')).toBe(2);
    expect(open.samples.get('upstream_requests_total{route="exceptions.list",method="GET",status="500"}')).toBe(1);
    expect(open.samples.get('upstream_requests_total{route="exceptions.list",method="GET",status="0"}')).toBe(1);
    expect(open.samples.get('graphql_requests_total{operation="Inbox",outcome="UPSTREAM_ERROR"}')).toBe(2);

    const other = await scrape(quiet);
    expect(other.samples.get('upstream_breaker_state')).toBe(0);
    expect([...other.samples.keys()].filter((key) => key.startsWith('graphql_requests_total') || key.startsWith('upstream_requests_total'))).toEqual([]);
  });

  it('caps the operation label set, so client-chosen names cannot grow the registry without bound', async () => {
    const s = await stack({});
    const { MAX_OPERATION_LABELS } = await import('../../src/observability/metrics.ts');
    for (let i = 0; i <= MAX_OPERATION_LABELS; i++) await s.gql(`query Op${i} { __typename }`, {}, { token: null });
    const { samples } = await scrape(s);
    const operations = [...samples.keys()].filter((key) => key.startsWith('graphql_requests_total{'));
    expect(operations).toHaveLength(MAX_OPERATION_LABELS + 1);
    expect(samples.get(`graphql_requests_total{operation="Op${MAX_OPERATION_LABELS - 1}",outcome="ok"}`)).toBe(1);
    expect(samples.has(`graphql_requests_total{operation="Op${MAX_OPERATION_LABELS}",outcome="ok"}`)).toBe(false);
    expect(samples.get('graphql_requests_total{operation="other",outcome="ok"}')).toBe(1);
  });

  it('is absent when METRICS is false', async () => {
    const s = await stack({ METRICS: 'false' });
    expect((await fetch(`${s.gateway.url}/metrics`)).status).toBe(404);
  });
});
