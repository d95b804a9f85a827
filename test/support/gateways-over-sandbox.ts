import { afterAll, afterEach, beforeAll } from '@jest/globals';
import { startSandbox, type Sandbox } from '../../sandbox/index.ts';
import { startProductionGateway, type GatewayProcess, type ProductionGateway } from './gateway-process.ts';

export interface GatewaysOverSandbox {
  /** The file's sandbox, started before its first test and closed after its last. */
  readonly sandbox: Sandbox;
  /**
   * The real gateway process over the sandbox with the file's settings and then `env`, once it serves.
   * Every gateway started is stopped when the test ends, so it is started in the test (not in a
   * `beforeAll`, whose gateway would not outlive the first test).
   */
  start(env?: Record<string, string>): Promise<ProductionGateway>;
  /** Stops every gateway the test has started, as its end does: for a test that starts the next in their place (a restart). */
  stop(): Promise<void>;
}

/**
 * The lifecycle shared by the test files of the real process (`node dist/main.js` in production
 * mode, as `npm start` runs it) over one in-process sandbox. Call it at the top of the file: it
 * registers the file's hooks.
 */
export function gatewaysOverSandbox(settings: Record<string, string> = {}, timeoutMs?: number): GatewaysOverSandbox {
  let sandbox: Sandbox | undefined;
  const running: GatewayProcess[] = [];
  beforeAll(async () => {
    sandbox = await startSandbox();
  });
  const stop = async (): Promise<void> => {
    await Promise.all(running.splice(0).map((gateway) => gateway.stop()));
  };
  afterEach(stop);
  afterAll(async () => {
    await sandbox?.close();
  });
  const started = (): Sandbox => {
    if (!sandbox) throw new Error('the sandbox starts before the first test: use it inside a test or hook');
    return sandbox;
  };
  return {
    get sandbox() {
      return started();
    },
    async start(env = {}) {
      const gateway = await startProductionGateway({ UPSTREAM_URL: started().url, ...settings, ...env }, timeoutMs);
      running.push(gateway.process);
      return gateway;
    },
    stop,
  };
}
