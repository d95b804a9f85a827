import type { Policy } from '../policy.ts';
import type { PlatformTransport } from '../transport.ts';

/** The last policy: the attempt goes to the platform (transport.ts, the only code that talks HTTP to it). */
export function transportPolicy(transport: PlatformTransport): Policy {
  return {
    name: 'transport',
    send: (call) => transport.call(call),
  };
}
