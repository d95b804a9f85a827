// A replica set on loopback without Docker (docs/scaling.md): the platform sandbox, Redis (when
// redis-server is installed), N gateway processes and HAProxy in front. Prints where everything is;
// Ctrl-C (SIGINT) or SIGTERM stops all of them and exits 0.
//   npm run replicas                  # three gateways
//   npm run replicas -- --replicas 5
//   RATE_LIMIT_PER_SECOND=20 npm run replicas   # any gateway setting, passed to every gateway
import { readCommandLine } from '../src/settings/command-line.ts';
import { buildGateway } from './build-gateway.ts';
import { startReplicaSet } from './replica-set.ts';

const { values } = readCommandLine(
  { options: { replicas: { type: 'string', default: '3' } } },
  {
    command: 'npm run replicas',
    summary: [
      'Starts a replica set on loopback without Docker: the platform sandbox, Redis (when redis-server is',
      'installed), N gateway processes built from the sources (dist/) and HAProxy in front. Prints where',
      'everything is; Ctrl-C (SIGINT) or SIGTERM stops all of them and exits 0. Every gateway setting in',
      'the environment is passed to every gateway.',
    ].join('\n'),
    options: { replicas: { text: 'gateway processes, 1 to 20', value: 'N' } },
    examples: ['npm run replicas -- --replicas 5', 'RATE_LIMIT_PER_SECOND=20 npm run replicas'],
  },
);
const replicas = Number(values.replicas);
if (!Number.isInteger(replicas) || replicas < 1 || replicas > 20) {
  process.stderr.write(`--replicas must be a whole number from 1 to 20, got "${values.replicas}"\n`);
  process.exit(1);
}

// The gateways run the built gateway (dist/), as the image does: built from the sources first.
await buildGateway();

// The processes' own lines (warnings and errors at the default LOG_LEVEL), each named.
const set = await startReplicaSet({ replicas, onLine: (name, line) => process.stdout.write(`[${name}] ${line}\n`) }).catch((error: unknown) => {
  process.stderr.write(`replicas: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});

let stopping = false;
const stop = (signal: string) => {
  if (stopping) return;
  stopping = true;
  process.stdout.write(`${signal}: stopping HAProxy, the gateways (each drains for ${set.shutdownDelayMs} ms), Redis and the sandbox\n`);
  set.stop().then(
    () => process.exit(0),
    (error: unknown) => {
      process.stderr.write(`replicas: stop failed: ${error instanceof Error ? error.message : String(error)}\n`);
      process.exit(1);
    },
  );
};
process.on('SIGINT', () => stop('SIGINT'));
process.on('SIGTERM', () => stop('SIGTERM'));
// Printed once Ctrl-C is handled: a Ctrl-C right after the banner stops everything cleanly.
process.stdout.write(set.summary());
