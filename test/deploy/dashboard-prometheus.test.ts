import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { stringify } from 'yaml';
import { freePort } from '../../scripts/free-port.ts';
import { startSandbox, type Sandbox } from '../../sandbox/index.ts';
import { startProductionGateway, type ProductionGateway } from '../support/gateway-process.ts';
import { bearer, postGraphQL } from '../support/graphql-client.ts';
import { until } from '../support/time.ts';
import { DASHBOARD_FILE, PROMETHEUS_DIR, readYaml, type Json } from './support.ts';

// Every panel of deploy/grafana/gateway-dashboard.json evaluated by a real Prometheus (Debian's
// package, the one CI installs for promtool) scraping a real gateway in production mode, under a
// small load of queries, a budget spent and open subscriptions: each expression returns a series.
// A panel naming a metric the gateway does not export, a label it does not carry or a value a label
// never takes returns none and fails here. Prometheus listens on 127.0.0.1 and scrapes every 500 ms.

const PROMETHEUS = '/usr/bin/prometheus';
const hasPrometheus = spawnSync(PROMETHEUS, ['--version'], { stdio: 'ignore' }).status === 0;
const describePrometheus = hasPrometheus || process.env.CI ? describe : describe.skip;

const dashboard = JSON.parse(readFileSync(DASHBOARD_FILE, 'utf8')) as Json;
const scrapeJob = readYaml(join(PROMETHEUS_DIR, 'scrape-job.yml'));
const targets: { id: string; title: string; expr: string }[] = dashboard.panels
  .filter((panel: Json) => panel.type !== 'row')
  .flatMap((panel: Json) => panel.targets.map((target: Json) => ({ id: `panel ${panel.id} ${target.refId}`, title: panel.title as string, expr: target.expr as string })));
/** Grafana's variables as the dashboard sends them: every instance, a window of several scrapes. */
const expand = (expr: string) => expr.replaceAll('$__rate_interval', '10s').replaceAll('$instance', '.*');

let sandbox: Sandbox;
let gateway: ProductionGateway;
let prometheus: ChildProcess | undefined;
let prometheusUrl: string;
let directory: string;
const streams: AbortController[] = [];
let spending: ReturnType<typeof setInterval> | undefined;

/** A multipart subscription (Apollo's protocol) held open until the test ends. */
async function subscribe(token: string): Promise<void> {
  const stop = new AbortController();
  streams.push(stop);
  const response = await fetch(`${gateway.origin}/graphql`, {
    method: 'POST',
    headers: { ...bearer(token), 'content-type': 'application/json', accept: 'multipart/mixed;subscriptionSpec="1.0",application/json' },
    body: JSON.stringify({ query: 'subscription Queue { exceptionsChanged { cursor node { id status } } }' }),
    signal: stop.signal,
  });
  expect(response.headers.get('content-type')).toBe('multipart/mixed; boundary="graphql"; subscriptionSpec="1.0"');
  // Read on, so the stream stays a subscriber that keeps up.
  void response.body!.pipeTo(new WritableStream()).catch(() => undefined);
}

async function query(expr: string): Promise<Json[]> {
  const response = await fetch(`${prometheusUrl}/api/v1/query?${new URLSearchParams({ query: expr })}`);
  const body = (await response.json()) as Json;
  if (body.status !== 'success') throw new Error(`Prometheus refused ${expr}: ${JSON.stringify(body)}`);
  return body.data.result as Json[];
}

describePrometheus('the dashboard against a real Prometheus scraping a real gateway', () => {
  beforeAll(async () => {
    directory = mkdtempSync(join(tmpdir(), 'dashboard-prometheus-'));
    sandbox = await startSandbox();
    // A small budget, so that a few queries spend it: refusals, and polls skipped for the caller whose budget is spent.
    gateway = await startProductionGateway({ UPSTREAM_URL: sandbox.url, RATE_LIMIT_PER_SECOND: '1', RATE_LIMIT_BURST: '4', SUBSCRIPTION_POLL_MS: '250', LOG_LEVEL: 'warn' });
    const admin = new URL(gateway.admin!);
    const port = await freePort();
    prometheusUrl = `http://127.0.0.1:${port}`;
    writeFileSync(join(directory, 'prometheus.yml'), stringify({
      global: { scrape_interval: '500ms', evaluation_interval: '500ms' },
      scrape_configs: [{ job_name: scrapeJob.job_name, metrics_path: scrapeJob.metrics_path, static_configs: [{ targets: [admin.host] }] }],
    }));
    prometheus = spawn(PROMETHEUS, [
      `--config.file=${join(directory, 'prometheus.yml')}`,
      `--storage.tsdb.path=${join(directory, 'data')}`,
      `--web.listen-address=127.0.0.1:${port}`,
    ], { stdio: 'ignore' });
    await until('Prometheus ready', () => fetch(`${prometheusUrl}/-/ready`).then((r) => (r.ok ? true : undefined), () => undefined), 30_000, 200);

    // The load: queries of two callers, two subscriptions (one of the caller whose budget is then spent).
    const [spender, reader] = [sandbox.tokens[0]!.token, sandbox.tokens[1]!.token];
    const answer = await postGraphQL(`${gateway.origin}/graphql`, { query: 'query Inbox { exceptions(first: 2) { totalCount } }' }, bearer(reader));
    expect(answer.status).toBe(200);
    // The platform failing every attempt of one call (retried, then answered as an upstream error): retries and server errors have series too.
    sandbox.faults.set('exceptions', { status: 503, times: 3 });
    // The spender's: a subscription passes the budget's admission as a query does, so the reader keeps room for its own.
    const failed = await postGraphQL(`${gateway.origin}/graphql`, { query: 'query Inbox { exceptions(first: 2) { totalCount } }' }, bearer(spender));
    expect(failed.body.errors?.map((error) => error.extensions.code)).toEqual(['UPSTREAM_ERROR']);
    await Promise.all([subscribe(spender), subscribe(reader)]);
    // Keeps the spender's budget spent: its queries are refused and its pollers' polls skipped.
    spending = setInterval(() => void postGraphQL(`${gateway.origin}/graphql`, { query: 'query Spend { exceptions(first: 1) { totalCount } }' }, bearer(spender)).catch(() => undefined), 150);
  }, 60_000);

  afterAll(async () => {
    clearInterval(spending);
    for (const stream of streams) stream.abort();
    if (prometheus && prometheus.exitCode === null) {
      const exited = new Promise((resolve) => prometheus!.once('exit', resolve));
      prometheus.kill('SIGTERM');
      await exited;
    }
    await gateway?.process.stop();
    await sandbox?.close();
    if (directory) rmSync(directory, { recursive: true, force: true });
  });

  it('scrapes the gateway\'s admin listener', async () => {
    const up = await until('the first scrape', async () => {
      const result = await query(`up{job="${scrapeJob.job_name}"}`);
      return result.length > 0 && result[0].value[1] === '1' ? result : undefined;
    }, 30_000, 250);
    expect(up.map((series: Json) => series.metric.instance)).toEqual([new URL(gateway.admin!).host]);
  }, 40_000);

  it('returns a series for every panel\'s expression', async () => {
    const empty = new Set(targets.map((target) => target.id));
    await until('every panel has a series', async () => {
      for (const target of targets) {
        if (!empty.has(target.id)) continue;
        if ((await query(expand(target.expr))).length > 0) empty.delete(target.id);
      }
      return empty.size === 0 ? true : undefined;
    }, 60_000, 500).catch(() => undefined);
    expect(targets.filter((target) => empty.has(target.id)).map((target) => `${target.id} (${target.title}): ${target.expr}`)).toEqual([]);
    // The live panels show the load itself: two multipart streams, polls skipped for the spent budget, refusals by token.
    expect((await query(expand(targets.find((t) => t.title === 'Open subscriptions by transport')!.expr))).map((s: Json) => [s.metric.transport, s.value[1]]).sort()).toEqual([['multipart', '2'], ['sse', '0'], ['ws', '0']]);
    expect((await query(expand(targets.find((t) => t.title === 'Budget refusals by caller')!.expr))).map((s: Json) => s.metric.caller)).toEqual(['token']);
    expect(Number((await query(expand(targets.find((t) => t.title === 'Skipped polls')!.expr)))[0].value[1])).toBeGreaterThan(0);
  }, 80_000);

  it('is checked for the live feeds and budgets panels (a made-up metric returns nothing)', async () => {
    expect(targets.length).toBeGreaterThanOrEqual(29);
    expect(await query(`sum by (instance) (rate(subscription_subscribers_lost_total{job="${scrapeJob.job_name}"}[10s]))`)).toEqual([]);
  });
});
