import { execFile, spawnSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { stringify } from 'yaml';
import { ErrorCode } from '../../src/errors.ts';
import { bearer, postGraphQL } from '../support/graphql-client.ts';
import { until } from '../support/time.ts';
import {
  DASHBOARD_FILE,
  PROMETHEUS_DIR,
  find,
  gatewaySettings,
  mebibytes,
  readManifests,
  readYaml,
  startDeployedGateway,
  type DeployedGateway,
  type Json,
} from './support.ts';

// Debian's promtool (package `prometheus`); CI installs it (.ci/run). On a workstation without it
// the promtool checks are skipped with this message, never silently passed in CI.
const hasPromtool = spawnSync('promtool', ['--version'], { stdio: 'ignore' }).status === 0;
const withPromtool = hasPromtool || process.env.CI ? it : it.skip;
const SUFFIX = hasPromtool || process.env.CI ? '' : ' (skipped: promtool is not installed; apt-get install -y --no-install-recommends prometheus)';

function promtool(args: string[], cwd: string): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile('promtool', args, { cwd }, (error, stdout, stderr) => {
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : 127) : 0, stdout, stderr });
    });
  });
}

const ALERTS_FILE = join(PROMETHEUS_DIR, 'alerts.yml');
const alerts = readYaml(ALERTS_FILE);
const alertTests = readYaml(join(PROMETHEUS_DIR, 'alerts.test.yml'));
const scrapeJob = readYaml(join(PROMETHEUS_DIR, 'scrape-job.yml'));
const dashboard = JSON.parse(readFileSync(DASHBOARD_FILE, 'utf8')) as Json;
const rules: Json[] = alerts.groups.flatMap((group: Json) => group.rules);
const panels: Json[] = dashboard.panels.filter((panel: Json) => panel.type !== 'row');
const dashboardQueries: { id: string; expr: string }[] = panels.flatMap((panel) => panel.targets.map((target: Json) => ({ id: `panel ${panel.id} ${target.refId}`, expr: target.expr as string })));
const queries = [...rules.map((rule) => ({ id: rule.alert as string, expr: rule.expr as string })), ...dashboardQueries];

/** Series Prometheus itself writes for every target, which no exporter serves. */
const PROMETHEUS_SERIES = new Set(['up']);
/** Labels Prometheus adds to every scraped series (the scrape job's target labels). */
const TARGET_LABELS = new Set(['job', 'instance', 'namespace', 'pod']);
const KEYWORDS = new Set(['by', 'without', 'on', 'ignoring', 'group_left', 'group_right', 'bool', 'and', 'or', 'unless', 'offset']);

interface Selector {
  metric: string;
  matchers: { label: string; op: string; value: string }[];
}

/**
 * The series selectors of a PromQL expression (metric name and label matchers) and the labels
 * its aggregations group by. Enough PromQL for these rules and panels: range durations,
 * grouping clauses, function calls and numbers are told apart from metric names.
 */
function parsePromQL(expr: string): { selectors: Selector[]; grouping: string[] } {
  const grouping: string[] = [];
  let rest = expr.replace(/\[[^\]]*\]/g, '');
  rest = rest.replace(/\b(by|without|on|ignoring|group_left|group_right)\s*\(([^)]*)\)/g, (_all, _keyword, labels: string) => {
    grouping.push(...labels.split(',').map((label) => label.trim()).filter((label) => label !== ''));
    return ' ';
  });
  const selectors: Selector[] = [];
  for (const match of rest.matchAll(/(?<![\w.])([A-Za-z_:][A-Za-z0-9_:]*)\s*(?:\{([^}]*)\})?(\s*\()?/g)) {
    const [, name, body, call] = match;
    if (call || KEYWORDS.has(name!)) continue;
    const matchers = [...(body ?? '').matchAll(/([A-Za-z_][A-Za-z0-9_]*)\s*(=~|!~|!=|=)\s*"((?:[^"\\]|\\.)*)"/g)].map(([, label, op, value]) => ({ label: label!, op: op!, value: value! }));
    selectors.push({ metric: name!, matchers });
  }
  return { selectors, grouping };
}

describe('deploy/prometheus alerting rules', () => {
  withPromtool(`pass promtool check rules${SUFFIX}`, async () => {
    const result = await promtool(['check', 'rules', 'alerts.yml'], PROMETHEUS_DIR);
    expect(result).toEqual({ code: 0, stdout: `Checking alerts.yml\n  SUCCESS: ${rules.length} rules found\n\n`, stderr: '' });
  });

  it('are the alerts the gateway pages or warns on', () => {
    expect(rules.map((rule) => [rule.alert, rule.labels.severity])).toEqual([
      ['GatewayErrorRatioHigh', 'page'],
      ['GatewayLatencyP99High', 'page'],
      ['GatewayPlatformRouteFailing', 'page'],
      ['GatewayCircuitBreakerOpen', 'page'],
      ['GatewayMemoryHigh', 'warning'],
      ['GatewayReplicaDown', 'warning'],
      ['GatewayNoReplicaUp', 'page'],
    ]);
  });

  withPromtool(`pass their unit tests (promtool test rules alerts.test.yml)${SUFFIX}`, async () => {
    const result = await promtool(['test', 'rules', 'alerts.test.yml'], PROMETHEUS_DIR);
    expect(result).toEqual({ code: 0, stdout: 'Unit Testing:  alerts.test.yml\n  SUCCESS\n\n', stderr: '' });
  });

  it('each have a unit test where they fire and one where they stay silent', () => {
    const cases = alertTests.tests.flatMap((test: Json) => test.alert_rule_test.map((c: Json) => ({ alert: c.alertname as string, fires: c.exp_alerts.length > 0 })));
    const names = rules.map((rule) => rule.alert as string);
    expect(names.map((name) => [name, cases.some((c: Json) => c.alert === name && c.fires), cases.some((c: Json) => c.alert === name && !c.fires)])).toEqual(names.map((name) => [name, true, true]));
    expect(cases.filter((c: Json) => !names.includes(c.alert))).toEqual([]);
  });

  withPromtool(`unit tests fail when an alert's threshold drifts${SUFFIX}`, async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gateway-alerts-'));
    try {
      const text = readFileSync(ALERTS_FILE, 'utf8');
      expect(text).toContain('> 0.05\n');
      writeFileSync(join(dir, 'alerts.yml'), text.replace('> 0.05\n', '> 0.5\n'));
      copyFileSync(join(PROMETHEUS_DIR, 'alerts.test.yml'), join(dir, 'alerts.test.yml'));
      const result = await promtool(['test', 'rules', 'alerts.test.yml'], dir);
      expect(result.code).toBe(1);
      expect(result.stdout + result.stderr).toMatch(/alertname: GatewayErrorRatioHigh, time: 15m,\s+exp:\[\s+0:\s+Labels:\{alertname="GatewayErrorRatioHigh", severity="page"\}/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('warn on memory at 80 % of the Deployment memory limit', () => {
    const manifests = readManifests();
    const container = find(manifests, 'Deployment', 'platform-gateway').spec.template.spec.containers[0];
    const memory = rules.find((rule) => rule.alert === 'GatewayMemoryHigh');
    const limit = /> 0\.8 \* (\d+) \* 1024 \* 1024\s*$/.exec(memory.expr)?.[1];
    expect(Number(limit)).toBe(mebibytes(container.resources.limits.memory));
  });
});

describe('deploy/grafana dashboard', () => {
  it('has unique panel ids, every panel on the Prometheus data source variable, and no overlapping panels', () => {
    const ids = dashboard.panels.map((panel: Json) => panel.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(dashboard.templating.list.map((v: Json) => [v.name, v.type])).toEqual([
      ['datasource', 'datasource'],
      ['instance', 'query'],
    ]);
    for (const panel of panels) {
      expect([panel.id, panel.datasource, panel.targets.length > 0]).toEqual([panel.id, { type: 'prometheus', uid: '${datasource}' }, true]);
      for (const target of panel.targets) expect([panel.id, typeof target.expr, target.expr.includes('instance=~"$instance"')]).toEqual([panel.id, 'string', true]);
    }
    const boxes = dashboard.panels.map((panel: Json) => ({ id: panel.id, ...panel.gridPos }));
    const overlaps = boxes.flatMap((a: Json, i: number) =>
      boxes.slice(i + 1).filter((b: Json) => a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h).map((b: Json) => [a.id, b.id]),
    );
    expect([overlaps, boxes.filter((b: Json) => b.x + b.w > 24)]).toEqual([[], []]);
  });

  it('shows requests, errors by code, latency, platform calls, breakers, event-loop lag and memory', () => {
    expect(panels.map((panel) => panel.title)).toEqual([
      'Replicas up',
      'Requests per second',
      'Server error ratio',
      'Latency p99',
      'Request rate by outcome',
      'Errors by code',
      'Latency percentiles',
      'Requests by operation (top 10)',
      'Platform calls by route and status',
      'Platform failures by route',
      'Platform latency p99 by route',
      'Platform retries by route',
      'Circuit breaker state',
      'Platform sockets',
      'Event-loop lag',
      'Memory',
      'CPU per replica',
      'Garbage collection',
      'Open subscriptions by transport',
      'Pollers',
      'Polls by outcome',
      'Events sent',
      'Subscribers dropped',
      'Budget draws',
      'Budget refusals by caller',
      'Skipped polls',
    ]);
  });

  withPromtool(`queries are valid PromQL (promtool check rules on them as recording rules)${SUFFIX}`, async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gateway-dashboard-'));
    try {
      // Grafana's variables as Prometheus would receive them.
      const expand = (expr: string) => expr.replaceAll('$__rate_interval', '1m').replaceAll('$instance', '.*');
      const recorded = dashboardQueries.map((query, i) => ({ record: `dashboard:query_${i}`, expr: expand(query.expr) }));
      expect(recorded.filter((rule) => rule.expr.includes('$'))).toEqual([]);
      writeFileSync(join(dir, 'dashboard.yml'), stringify({ groups: [{ name: 'dashboard', rules: recorded }] }));
      const result = await promtool(['check', 'rules', 'dashboard.yml'], dir);
      expect(result).toEqual({ code: 0, stdout: `Checking dashboard.yml\n  SUCCESS: ${recorded.length} rules found\n\n`, stderr: '' });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('rules, dashboard and scrape job together', () => {
  it('select the scrape job the manifests are scraped under', () => {
    const jobs = new Set([...JSON.stringify(dashboard).matchAll(/job=\\"([^"\\]+)\\"/g), ...readFileSync(ALERTS_FILE, 'utf8').matchAll(/job="([^"]+)"/g)].map((m) => m[1]));
    expect([...jobs]).toEqual([scrapeJob.job_name]);
    for (const query of queries) {
      const selectors = parsePromQL(query.expr).selectors;
      expect([query.id, selectors.every((s) => s.matchers.some((m) => m.label === 'job' && m.op === '=' && m.value === scrapeJob.job_name))]).toEqual([query.id, true]);
    }
    const manifests = readManifests();
    const pod = find(manifests, 'Deployment', 'platform-gateway').spec.template;
    const [labels, port] = scrapeJob.relabel_configs.filter((r: Json) => r.action === 'keep');
    const podValues = labels.source_labels.map((source: string) => pod.metadata.labels[source.replace('__meta_kubernetes_pod_label_', '').replace(/^app_kubernetes_io_/, 'app.kubernetes.io/')]);
    expect(new RegExp(`^(?:${labels.regex})$`).test(podValues.join(';'))).toBe(true);
    expect(port.source_labels).toEqual(['__meta_kubernetes_pod_container_port_name']);
    expect(pod.spec.containers[0].ports.filter((p: Json) => new RegExp(`^(?:${port.regex})$`).test(p.name)).map((p: Json) => p.containerPort)).toEqual([Number(gatewaySettings().ADMIN_PORT)]);
  });

  it('name only error codes the gateway answers with', () => {
    const codes = new Set<string>(Object.values(ErrorCode));
    // A request's outcome is an error code; a poll's (subscription_polls_total) is one of its own few.
    const named = queries.flatMap((query) =>
      parsePromQL(query.expr).selectors.filter((s) => s.metric !== 'subscription_polls_total').flatMap((s) => s.matchers.filter((m) => m.label === 'outcome').flatMap((m) => m.value.split('|'))),
    );
    const pollOutcomes = queries.flatMap((query) =>
      parsePromQL(query.expr).selectors.filter((s) => s.metric === 'subscription_polls_total').flatMap((s) => s.matchers.filter((m) => m.label === 'outcome').flatMap((m) => m.value.split('|'))),
    );
    expect(pollOutcomes).toEqual(['skipped']);
    expect([...new Set(named)].sort()).toEqual(['INTERNAL_SERVER_ERROR', 'UPSTREAM_ERROR', 'UPSTREAM_TIMEOUT', 'ok']);
    expect(named.filter((code) => code !== 'ok' && !codes.has(code))).toEqual([]);
  });
});

describe('metrics named by the rules and the dashboard, against a real /metrics', () => {
  let deployed: DeployedGateway;
  /** Every series name the exposition declares (a histogram's _bucket, _sum and _count included). */
  const exported = new Set<string>();
  /** Label names seen on each series name's samples. */
  const labelsOf = new Map<string, Set<string>>();
  let metricsPath: string;

  beforeAll(async () => {
    deployed = await startDeployedGateway(gatewaySettings());
    const token = deployed.sandbox.tokens[0]!.token;
    const gql = async (query: string) => (await postGraphQL(`${deployed.url}/graphql`, { query }, bearer(token))).body;
    // A platform answer of 503 once: the call is retried, so the retry counter has a sample too.
    deployed.sandbox.faults.set('exceptions', { status: 503, times: 1 });
    const answers = [await gql('query Inbox { exceptions(first: 2) { nodes { id } } }'), await gql('{ exceptions(first: 1) { totalCount } }'), await gql('{ nope }')];
    expect(answers.map((a: Json) => [Boolean(a.data?.exceptions), a.errors?.[0]?.extensions?.code])).toEqual([
      [true, undefined],
      [true, undefined],
      [false, 'GRAPHQL_VALIDATION_FAILED'],
    ]);
    // Tokens the platform refuses, from one address, past AUTH_FAILURE_LIMIT_BURST: rate_limited_total gets a sample.
    const refused = [];
    for (let i = 0; i < 12; i++) refused.push((await postGraphQL(`${deployed.url}/graphql`, { query: '{ exceptions(first: 1) { totalCount } }' }, bearer(`not-a-token-${i}`))).status);
    expect(refused).toContain(429);
    // A subscription's first poll: subscription_polls_total gets a sample.
    const stop = new AbortController();
    const stream = await fetch(`${deployed.url}/graphql`, {
      method: 'POST',
      headers: { ...bearer(token), 'content-type': 'application/json', accept: 'multipart/mixed;subscriptionSpec="1.0",application/json' },
      body: JSON.stringify({ query: 'subscription Queue { exceptionsChanged { cursor } }' }),
      signal: stop.signal,
    });
    void stream.body!.pipeTo(new WritableStream()).catch(() => undefined);
    await until('a subscription poll', async () => ((await (await fetch(`${deployed.adminUrl}/metrics`)).text()).includes('subscription_polls_total{') ? true : undefined), 20_000, 100);
    stop.abort();
    metricsPath = scrapeJob.metrics_path;
    // Production serves /metrics on the admin listener only.
    const text = await (await fetch(`${deployed.adminUrl}${metricsPath}`)).text();
    for (const [, name, type] of text.matchAll(/^# TYPE (\S+) (\S+)$/gm)) {
      const suffixes = { histogram: ['_bucket', '_sum', '_count'], summary: ['', '_sum', '_count'] }[type as 'histogram' | 'summary'] ?? [''];
      for (const suffix of suffixes) exported.add(`${name}${suffix}`);
    }
    for (const [, name, body] of text.matchAll(/^([A-Za-z_:][A-Za-z0-9_:]*)(?:\{([^}]*)\})? \S+$/gm)) {
      const labels = labelsOf.get(name!) ?? new Set<string>();
      for (const [, label] of (body ?? '').matchAll(/([A-Za-z_][A-Za-z0-9_]*)="/g)) labels.add(label!);
      labelsOf.set(name!, labels);
    }
  }, 30_000);
  afterAll(() => deployed?.close());

  it('are all exported by the gateway (its own metrics and prom-client defaults), besides Prometheus up', () => {
    const named = new Set(queries.flatMap((query) => parsePromQL(query.expr).selectors.map((s) => s.metric)));
    expect([...named].sort()).toEqual([
      'budget_draws_total',
      'graphql_request_duration_seconds_bucket',
      'graphql_requests_total',
      'nodejs_eventloop_lag_mean_seconds',
      'nodejs_eventloop_lag_p99_seconds',
      'nodejs_gc_duration_seconds_sum',
      'nodejs_heap_size_used_bytes',
      'process_cpu_seconds_total',
      'process_resident_memory_bytes',
      'rate_limited_total',
      'subscription_events_total',
      'subscription_pollers',
      'subscription_polls_total',
      'subscription_subscribers_dropped_total',
      'subscriptions_open',
      'up',
      'upstream_breaker_state',
      'upstream_request_duration_seconds_bucket',
      'upstream_requests_total',
      'upstream_retries_total',
      'upstream_sockets',
    ]);
    expect([...named].filter((name) => !exported.has(name) && !PROMETHEUS_SERIES.has(name))).toEqual([]);
    // Each has samples after a few requests, so the label check below sees its labels.
    expect([...named].filter((name) => !labelsOf.has(name) && !PROMETHEUS_SERIES.has(name))).toEqual([]);
  });

  it('match and group by labels those metrics carry', () => {
    const problems: string[] = [];
    for (const query of queries) {
      const { selectors, grouping } = parsePromQL(query.expr);
      for (const selector of selectors) {
        if (PROMETHEUS_SERIES.has(selector.metric)) continue;
        const carried = labelsOf.get(selector.metric) ?? new Set<string>();
        for (const { label } of selector.matchers) if (!TARGET_LABELS.has(label) && !carried.has(label)) problems.push(`${query.id}: ${selector.metric} has no label ${label}`);
      }
      for (const label of grouping) {
        const carriedByAny = selectors.some((s) => labelsOf.get(s.metric)?.has(label));
        if (!TARGET_LABELS.has(label) && !carriedByAny) problems.push(`${query.id}: no metric of the query has the label ${label} it groups by`);
      }
    }
    expect(problems).toEqual([]);
    // The check sees labels: a made-up one is reported.
    expect(parsePromQL('sum by (code) (rate(upstream_requests_total{job="platform-gateway", code="503"}[5m]))')).toEqual({
      selectors: [{ metric: 'upstream_requests_total', matchers: [{ label: 'job', op: '=', value: 'platform-gateway' }, { label: 'code', op: '=', value: '503' }] }],
      grouping: ['code'],
    });
    expect(labelsOf.get('upstream_requests_total')).toEqual(new Set(['route', 'method', 'status']));
  });

  it('are served where the scrape job reads them', () => {
    expect([metricsPath, exported.has('graphql_requests_total')]).toEqual(['/metrics', true]);
  });
});
