import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import type { ApolloServerPlugin, BaseContext } from '@apollo/server';
import { execute, type ValidationRule } from 'graphql';
import type { Stage } from '../../src/http/stage.ts';
import type { GatewayContext } from '../../src/context.ts';
import type { ObservabilityParts } from '../../src/observability/index.ts';
import type { RequestObservers } from '../../src/observability/request-plugin.ts';
import type { Policy } from '../../src/platform/policy.ts';
import type { GatewayParts } from '../../src/server.ts';

// The cost harness's switches (bench/feature-cost.ts): the gateway is started with the parts these
// wrap (GatewayParts, src/server.ts), and each feature is turned off and on while it runs. Nothing
// of this is in src/: a gateway started without parts wraps nothing and pays nothing.

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
  /** Compiled execution (graphql-jit); off, graphql-js interprets every document. A saving, not a cost: "every feature" leaves it on. */
  'compiled execution',
  /** The token gate of platform calls: an unknown token's calls one at a time. */
  'token gate',
  /** The breaker and the bulkhead of platform calls, kept per platform route. */
  'breaker and bulkhead',
  /** The calls budget of platform calls: MAX_PLATFORM_CALLS_PER_REQUEST and, with a budget set, each attempt's draw from the caller's bucket. */
  'calls budget',
  /** Every feature above at once: what they cost together, and what the gateway costs without them. */
  'every feature',
] as const;

/** Which feature each platform-call policy (src/platform/policies/) belongs to; a policy not named here is never switched off. */
const POLICY_FEATURES: Readonly<Record<string, SwitchableFeature>> = {
  'token gate': 'token gate',
  'breaker gate': 'breaker and bulkhead',
  bulkhead: 'breaker and bulkhead',
  breaker: 'breaker and bulkhead',
  'calls budget': 'calls budget',
  'bucket draw': 'calls budget',
};

export type SwitchableFeature = (typeof SWITCHABLE_FEATURES)[number];

/** What "every feature" turns off with it: not the control, nor compiled execution, which saves rather than costs. */
const JOINS_EVERY_FEATURE: ReadonlySet<SwitchableFeature> = new Set(SWITCHABLE_FEATURES.filter((feature) => feature !== 'control' && feature !== 'compiled execution'));

/** Which features are on, read at each request by the parts it wraps (`parts()`). Every feature starts on. */
export class FeatureSwitches {
  private readonly off = new Set<SwitchableFeature>();

  isOn(feature: SwitchableFeature): boolean {
    return !this.off.has(feature) && (!JOINS_EVERY_FEATURE.has(feature) || !this.off.has('every feature'));
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

  /** The gateway's parts, each behind its feature's switch: what startGateway is given. */
  parts(): GatewayParts {
    return {
      policies: (defaults) => defaults.map((policy) => this.policy(policy)),
      stages: (stages) => ({
        ...stages,
        webClientHeaders: this.stage('web-client headers', stages.webClientHeaders),
        admission: this.stage('admission', stages.admission),
      }),
      listener: (frontDoor, stages) => {
        const unscoped = withoutScope(stages);
        return (req, res) => (this.isOn('request scope') ? frontDoor(req, res) : unscoped(req, res));
      },
      validationRules: (rules) => rules.map((rule) => this.rule('hardening', rule)),
      hardeningPlugins: (plugins) => plugins.map((plugin) => this.plugin('hardening', plugin)),
      observability: this.observability(),
      execution: (compiled, schema) => ({
        execute: (request) =>
          this.isOn('compiled execution')
            ? compiled.execute(request)
            : execute({ schema, document: request.document, operationName: request.operationName, variableValues: request.variables, contextValue: request.contextValue }),
      }),
    };
  }

  /** The observers of platform calls and requests: all behind "observability", the request log and the metrics each behind its own. */
  private observability(): ObservabilityParts {
    return {
      upstream: (log, metrics) => (event) => {
        if (!this.isOn('observability')) return;
        log(event);
        if (this.isOn('metrics')) metrics?.(event);
      },
      plugin: (observers: RequestObservers, build: (observers: RequestObservers) => ApolloServerPlugin<GatewayContext>) => {
        const silent = observers.logger.child({}, { level: 'silent' });
        const variants = [build(observers), build({ ...observers, logger: silent }), build({ ...observers, metrics: undefined }), build({ ...observers, logger: silent, metrics: undefined })];
        const current = () => variants[(this.isOn('request log') ? 0 : 1) + (this.isOn('metrics') ? 0 : 2)]!;
        return {
          invalidRequestWasReceived: async (request) => (this.isOn('observability') ? current().invalidRequestWasReceived?.(request) : undefined),
          requestDidStart: async (requestContext) => (this.isOn('observability') ? current().requestDidStart?.(requestContext) : undefined),
        };
      },
    };
  }
}

/**
 * The stages run in order outside any request scope: a request served so has no id, but keeps its
 * state (requestScopeOf). What the "request scope" feature is measured against; a failure is a bare 500.
 */
function withoutScope(stages: readonly Stage[]): RequestListener {
  return (req: IncomingMessage, res: ServerResponse) => {
    let index = 0;
    const next = (error?: unknown): void => {
      const stage = stages[index++];
      if ((error !== undefined && error !== null) || stage === undefined) {
        if (res.headersSent) res.destroy();
        else res.writeHead(500).end();
        return;
      }
      try {
        stage(req, res, next);
      } catch (thrown) {
        next(thrown ?? new Error('stage failed'));
      }
    };
    next();
  };
}
