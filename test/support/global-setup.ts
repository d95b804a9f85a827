import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/**
 * Before any test: the gateway's bundle in dist/, which the tests of the real process start as
 * `npm start` does, built from the sources under test. In a process of its own, as `npm start`'s
 * prestart runs it, away from jest's module hooks.
 */
export default function buildGatewayForProcessTests(): void {
  execFileSync(`${ROOT}node_modules/.bin/node`, ['--disable-warning=ExperimentalWarning', 'scripts/build-gateway.ts'], { cwd: ROOT, stdio: ['ignore', 'ignore', 'inherit'] });
}
