import type { IncomingMessage, ServerResponse } from 'node:http';
import { readdirSync, readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Kind, type ValidationContext } from 'graphql';
import { FeatureSwitches } from '../../bench/lib/feature-switches.ts';
import type { Stage } from '../../src/http/stage.ts';
import type { PlatformCall, Policy } from '../../src/platform/policy.ts';
import type { Answer } from '../../src/platform/upstream-call.ts';
import { testConfig } from '../../src/settings/config.ts';
import { createLogger } from '../../src/logger.ts';
import { startGateway, type Gateway } from '../../src/server.ts';
import { startSandbox, type Sandbox } from '../../sandbox/index.ts';

const req = {} as IncomingMessage;
const res = {} as ServerResponse;

describe('feature switches (the cost harness)', () => {
  it('start with every feature on and turn one off and on again', () => {
    const switches = new FeatureSwitches();
    expect([switches.isOn('request log'), switches.isOn('metrics')]).toEqual([true, true]);
    switches.set('request log', false);
    expect([switches.isOn('request log'), switches.isOn('metrics')]).toEqual([false, true]);
    switches.set('request log', true);
    expect(switches.isOn('request log')).toBe(true);
  });

  it('turn every feature off at once with "every feature", but not the control, and each back as it was', () => {
    const switches = new FeatureSwitches();
    switches.set('metrics', false);
    switches.set('every feature', false);
    expect([switches.isOn('request log'), switches.isOn('metrics'), switches.isOn('calls budget'), switches.isOn('every feature'), switches.isOn('control')]).toEqual([false, false, false, false, true]);
    switches.set('every feature', true);
    expect([switches.isOn('request log'), switches.isOn('metrics'), switches.isOn('calls budget')]).toEqual([true, false, true]);
  });

  it('skip a stage while its feature is off, passing the request on', () => {
    const switches = new FeatureSwitches();
    const seen: string[] = [];
    const stage: Stage = (_req, _res, next) => {
      seen.push('stage');
      next();
    };
    const wrapped = switches.stage('admission', stage);
    wrapped(req, res, () => seen.push('next'));
    switches.set('admission', false);
    wrapped(req, res, () => seen.push('next'));
    expect(seen).toEqual(['stage', 'next', 'next']);
  });

  it("leave a plugin's requests unobserved while its feature is off", async () => {
    const switches = new FeatureSwitches();
    const listener = { willSendResponse: async () => undefined };
    const wrapped = switches.plugin('hardening', { requestDidStart: async () => listener });
    const start = (wrapped.requestDidStart as (context: unknown) => Promise<unknown>).bind(wrapped);
    expect(await start({})).toBe(listener);
    switches.set('hardening', false);
    expect(await start({})).toBeUndefined();
  });

  it('let a validation rule check nothing while its feature is off', () => {
    const switches = new FeatureSwitches();
    const visitor = { [Kind.FIELD]: () => undefined };
    const rule = switches.rule('hardening', () => visitor);
    const context = {} as ValidationContext;
    expect(rule(context)).toBe(visitor);
    switches.set('hardening', false);
    expect(rule(context)).toEqual({});
  });

  it('pass a platform call straight on while its policy\'s feature is off, and never switch off a policy of no feature', async () => {
    const switches = new FeatureSwitches();
    const seen: string[] = [];
    const policy = (name: string): Policy => ({ name, send: (call, next) => (seen.push(name), next(call)) });
    const answer = { status: 200, body: '{}', headers: {}, retries: 0 } as unknown as Answer;
    const next = async () => answer;
    const call = {} as PlatformCall;
    const [breaker, draw, transport] = [switches.policy(policy('breaker')), switches.policy(policy('bucket draw')), switches.policy(policy('transport'))];
    expect(breaker.name).toBe('breaker');
    switches.set('breaker and bulkhead', false);
    switches.set('calls budget', false);
    for (const wrapped of [breaker, draw, transport]) expect(await wrapped.send(call, next)).toBe(answer);
    switches.set('breaker and bulkhead', true);
    await breaker.send(call, next);
    expect(seen).toEqual(['transport', 'breaker']);
  });
});

describe('a gateway started with the switches\' parts (bench/feature-cost.ts)', () => {
  let sandbox: Sandbox;
  let gateway: Gateway;
  const switches = new FeatureSwitches();
  beforeAll(async () => {
    sandbox = await startSandbox();
    gateway = await startGateway(testConfig({ COMPILED_QUERY_MIN_USES: '1' }), sandbox.url, { logger: createLogger('silent'), parts: switches.parts() });
  });
  afterAll(async () => {
    await gateway?.close();
    await sandbox?.close();
  });

  /** A path the gateway does not serve: its refusal shows the request id when the request has its scope. */
  const refused = async () => (await fetch(`${gateway.url}/nowhere`, { headers: { 'x-request-id': 'harness-1' } })).json();
  const typename = async () => (await fetch(`${gateway.url}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"query":"{ __typename }"}' })).json();

  it('serves requests with every feature on, off, and on again; a request outside its scope has no id', async () => {
    const notFound = { message: 'Not found: the GraphQL endpoint is POST /graphql', extensions: { code: 'NOT_FOUND', requestId: 'harness-1' } };
    expect(await refused()).toEqual({ errors: [notFound] });
    switches.set('request scope', false);
    expect(await refused()).toEqual({ errors: [{ ...notFound, extensions: { code: 'NOT_FOUND' } }] });
    switches.set('request scope', true);
    switches.set('every feature', false);
    expect(await typename()).toEqual({ data: { __typename: 'Query' }, extensions: { cost: { requestedQueryCost: 0, actualQueryCost: 0 } } });
    switches.set('every feature', true);
    expect(await refused()).toEqual({ errors: [notFound] });
    // Compiled from its first use, and interpreted by graphql-js while the switch is off: the same answer.
    for (const on of [true, false, true]) {
      switches.set('compiled execution', on);
      expect(await typename()).toEqual({ data: { __typename: 'Query' }, extensions: { cost: { requestedQueryCost: 0, actualQueryCost: 0 } } });
    }
    expect(switches.isOn('compiled execution')).toBe(true);
  });

  it('leave compiled execution on when "every feature" is off: it saves, it does not cost', () => {
    const alone = new FeatureSwitches();
    alone.set('every feature', false);
    expect([alone.isOn('compiled execution'), alone.isOn('control'), alone.isOn('metrics')]).toEqual([true, true, false]);
  });

  it('is wired from bench/ alone: no module of src/ names the switches', () => {
    const root = new URL('../../', import.meta.url);
    const sources = readdirSync(new URL('src/', root), { recursive: true, encoding: 'utf8' }).filter((file) => /\.(ts|js)$/.test(file));
    expect(sources.filter((file) => /FeatureSwitches|feature-switches|switches\b/.test(readFileSync(new URL(`src/${file}`, root), 'utf8')))).toEqual([]);
  });
});
