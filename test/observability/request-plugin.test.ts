import { describe, expect, it } from '@jest/globals';
import { createLogger } from '../../src/logger.ts';
import type { GatewayMetrics } from '../../src/observability/metrics.ts';
import { requestObserverPlugin } from '../../src/observability/request-plugin.ts';

describe('the request observer plugin', () => {
  // What it listens to decides what each request pays: Apollo calls every registered hook and awaits its promise.
  const hooks = (plugin: object) => Object.keys(plugin).sort();

  it('listens to every request when it writes a line, a metric sample or a span', () => {
    const metrics = { recordRequest: () => undefined, recordRefusal: () => undefined } as unknown as GatewayMetrics;
    expect(hooks(requestObserverPlugin({ logger: createLogger('info'), echoChars: 80 }))).toEqual(['invalidRequestWasReceived', 'requestDidStart']);
    expect(hooks(requestObserverPlugin({ logger: createLogger('warn'), metrics, echoChars: 80 }))).toEqual(['invalidRequestWasReceived', 'requestDidStart']);
  });

  it('does not listen to requests when it would write nothing for them: no request line (LOG_LEVEL above info), no metrics, no tracing', () => {
    expect(hooks(requestObserverPlugin({ logger: createLogger('warn'), echoChars: 80 }))).toEqual(['invalidRequestWasReceived']);
  });
});
