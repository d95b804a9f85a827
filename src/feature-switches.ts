import type { ApolloServerPlugin, BaseContext } from '@apollo/server';
import type { ValidationRule } from 'graphql';
import type { Stage } from './http/stage.ts';
import type { Policy } from './platform/policy.ts';

/** The features the cost harness (bench/feature-cost.ts) turns off and on in a running gateway. */
export const SWITCHABLE_FEATURES = [
  /** Nothing: the harness's A/A control, whose "cost" is the measurement's noise. */
  'control',
  /** The request's log line (pino). */
  'request log',
  /** The request and platform-call metrics (prom-client). */
  'metrics',
  /** Every observer of requests and platform calls: the request plugin, its log line, metrics and spans, and the upstream events. */
  'observability',
  /** The request-id scope (AsyncLocalStorage) around each request. */
  'request scope',
  /** CORS and `Cache-Control: no-store`. */
  'web-client headers',
  /** The front door's caller admission (token or address). */
  'admission',
  /** The static limits: the query-limits plugin and the validation rules of depth, aliases, directives and cost. */
  'hardening',
  /** The token gate of platform calls: an unknown token's calls one at a time. */
  'token gate',
  /** The route guard of platform calls: the breaker and the bulkhead. */
  'route guard',
  /** The calls budget of platform calls: MAX_PLATFORM_CALLS_PER_REQUEST and, with a budget set, each attempt's draw from the caller's bucket. */
  'calls budget',
  /** Every feature above at once: what they cost together, and what the gateway costs without them. */
  'every feature',
] as const;

/** Which feature each platform-call policy (src/platform/policies/) belongs to; a policy not named here is never switched off. */
const POLICY_FEATURES: Readonly<Record<string, SwitchableFeature>> = {
  'token gate': 'token gate',
  'breaker gate': 'route guard',
  bulkhead: 'route guard',
  breaker: 'route guard',
  'calls budget': 'calls budget',
  'bucket draw': 'calls budget',
};

export type SwitchableFeature = (typeof SWITCHABLE_FEATURES)[number];

/**
 * Which features are on, read at each request by the pieces startGateway wraps when it is given a
 * FeatureSwitches (only the cost harness does): a gateway started without one wraps nothing and
 * pays nothing. Every feature starts on.
 */
export class FeatureSwitches {
  private readonly off = new Set<SwitchableFeature>();

  isOn(feature: SwitchableFeature): boolean {
    return !this.off.has(feature) && (feature === 'control' || !this.off.has('every feature'));
  }

  set(feature: SwitchableFeature, on: boolean): void {
    if (on) this.off.delete(feature);
    else this.off.add(feature);
  }

  /** The stage, skipped (passed on) while `feature` is off. */
  stage(feature: SwitchableFeature, stage: Stage): Stage {
    return (req, res, next) => (this.isOn(feature) ? stage(req, res, next) : next());
  }

  /** The plugin, whose requests go unobserved while `feature` is off (server-level hooks always run). */
  plugin<Context extends BaseContext>(feature: SwitchableFeature, plugin: ApolloServerPlugin<Context>): ApolloServerPlugin<Context> {
    const started = plugin.requestDidStart?.bind(plugin);
    if (started === undefined) return plugin;
    return { ...plugin, requestDidStart: async (requestContext) => (this.isOn(feature) ? started(requestContext) : undefined) };
  }

  /** The platform-call policy, which passes the call straight on while its feature is off. */
  policy(policy: Policy): Policy {
    const feature = POLICY_FEATURES[policy.name];
    if (feature === undefined) return policy;
    return { name: policy.name, send: (call, next) => (this.isOn(feature) ? policy.send(call, next) : next(call)) };
  }

  /** The validation rule, which checks nothing while `feature` is off. */
  rule(feature: SwitchableFeature, rule: ValidationRule): ValidationRule {
    return (context) => (this.isOn(feature) ? rule(context) : {});
  }
}
