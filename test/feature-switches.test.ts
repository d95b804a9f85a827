import type { IncomingMessage, ServerResponse } from 'node:http';
import { describe, expect, it } from '@jest/globals';
import { Kind, type ValidationContext } from 'graphql';
import { FeatureSwitches } from '../src/feature-switches.ts';
import type { Stage } from '../src/http/stage.ts';
import type { PlatformCall, Policy } from '../src/platform/policy.ts';
import type { Answer } from '../src/platform/upstream-call.ts';

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
    switches.set('route guard', false);
    switches.set('calls budget', false);
    for (const wrapped of [breaker, draw, transport]) expect(await wrapped.send(call, next)).toBe(answer);
    switches.set('route guard', true);
    await breaker.send(call, next);
    expect(seen).toEqual(['transport', 'breaker']);
  });
});
