import { createServer } from 'node:net';

/**
 * Ports chosen here lie below the kernel's ephemeral range (32768–60999 on Linux, 49152 and up on
 * macOS and Windows), where a port is only ever taken by someone asking for it by number. A port
 * picked now and bound a moment later (a gateway told its PORT, HAProxy's backends) therefore
 * cannot be taken meanwhile by a process asking for any free port, as the processes of another test
 * file running beside this one do all the time.
 */
const FIRST_PORT = 26_000;
const LAST_PORT = 32_767;
const ATTEMPTS = 100;

function canListen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

/** A loopback port nothing listens on right now, below the ephemeral range. */
export async function freePort(): Promise<number> {
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    const port = FIRST_PORT + Math.floor(Math.random() * (LAST_PORT - FIRST_PORT + 1));
    if (await canListen(port)) return port;
  }
  throw new Error(`no free loopback port between ${FIRST_PORT} and ${LAST_PORT} after ${ATTEMPTS} tries`);
}
