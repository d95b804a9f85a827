import type { Logger } from 'pino';
import { testConfig } from '../../src/settings/config.ts';
import { createLogger } from '../../src/logger.ts';
import { startSandbox, type Sandbox, type SandboxOptions } from '../../sandbox/index.ts';
import { startGateway, type Gateway } from '../../src/server.ts';
import { bearer, postGraphQL, type GraphQLAnswer } from './graphql-client.ts';
import { AnswerRecorder, PlatformContract } from './platform-contract.ts';

/** Read once per test file: every stack's sandbox answers are checked against it. */
const contract = PlatformContract.fromFile();

export interface Stack {
  sandbox: Sandbox;
  gateway: Gateway;
  acme: string;
  globex: string;
  /** POSTs an operation to /graphql; `token: null` sends no Authorization header. */
  gql<T = Record<string, unknown>>(query: string, variables?: Record<string, unknown>, options?: { token?: string | null; headers?: Record<string, string> }): Promise<GraphQLAnswer<T>>;
  /** Platform requests (api host) recorded since the last reset. */
  platformCalls(): Sandbox['requests'];
  /** Every API answer of the sandbox, checked against openapi/platform.yaml as it is sent. */
  answers: AnswerRecorder;
  /** Stops both; then fails if any sandbox answer broke the OpenAPI document. */
  close(): Promise<void>;
}

/** The gateway over a fresh in-process sandbox, both on ephemeral loopback ports. */
export async function startStack(env: Record<string, string> = {}, sandboxOptions: SandboxOptions = {}, logger?: Logger): Promise<Stack> {
  const answers = new AnswerRecorder(contract);
  const sandbox = await startSandbox({
    scanDelayMs: 50,
    ...sandboxOptions,
    onAnswer: (answer) => {
      answers.record(answer);
      sandboxOptions.onAnswer?.(answer);
    },
  });
  const config = testConfig(env);
  const gateway = await startGateway(config, sandbox.url, { logger: logger ?? createLogger('silent') });
  const token = (name: string) => sandbox.tokens.find((t) => t.businessAccountName.toLowerCase().includes(name))!.token;
  return {
    sandbox,
    gateway,
    acme: token('acme'),
    globex: token('globex'),
    gql(query, variables, options = {}) {
      const caller = options.token === undefined ? token('acme') : options.token;
      return postGraphQL(`${gateway.url}/graphql`, { query, variables }, { ...options.headers, ...(caller === null ? {} : bearer(caller)) });
    },
    platformCalls: () => sandbox.requests.filter((r) => r.host === 'api'),
    answers,
    async close() {
      await gateway.close();
      await new Promise<void>((resolve) => gateway.server.close(() => resolve()));
      await sandbox.close();
      answers.assertAllAllowed();
    },
  };
}
