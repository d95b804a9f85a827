import type { GatewayProcess } from './gateway-process.ts';

/**
 * The setting that lets `liveMemory` read a gateway process: its inspector on a free loopback port
 * (the port is printed on stderr).
 */
export const INSPECTABLE = { NODE_OPTIONS: '--inspect=127.0.0.1:0' };

/**
 * Full collections per reading: more than V8's bytecode-old-age (6), so that the bytecode of code
 * the process no longer runs (its start-up) is dropped by the first reading, not between two.
 */
const COLLECTIONS = 8;

/**
 * What a process started with `INSPECTABLE` holds once every unreachable object is collected: its
 * JS heap plus the memory its objects own outside it (Buffers), in bytes. A full collection first,
 * through the inspector, so that garbage the collector has not reached yet does not count: unlike
 * RSS, which follows how far V8 has chosen to grow the heap, this grows only with what the process
 * keeps.
 */
export async function liveMemory(gateway: GatewayProcess): Promise<number> {
  const [, url] = (await gateway.waitForStderr(/Debugger listening on (ws:\/\/\S+)/, 10_000)) as [string, string];
  const socket = new WebSocket(url);
  try {
    await new Promise((resolve, reject) => {
      socket.addEventListener('open', resolve, { once: true });
      socket.addEventListener('error', () => reject(new Error(`the inspector at ${url} refused the connection`)), { once: true });
    });
    const replies = new Map<number, (result: unknown) => void>();
    socket.addEventListener('message', (event: MessageEvent<string>) => {
      const message = JSON.parse(event.data) as { id?: number; result?: unknown; error?: unknown };
      if (message.id !== undefined) replies.get(message.id)?.(message.error === undefined ? message.result : new Error(JSON.stringify(message.error)));
    });
    let sent = 0;
    const call = (method: string, params: Record<string, unknown> = {}): Promise<unknown> =>
      new Promise((resolve, reject) => {
        const id = ++sent;
        replies.set(id, (result) => (result instanceof Error ? reject(result) : resolve(result)));
        socket.send(JSON.stringify({ id, method, params }));
      });
    for (let round = 0; round < COLLECTIONS; round++) await call('HeapProfiler.collectGarbage');
    const { result } = (await call('Runtime.evaluate', { expression: 'JSON.stringify(process.memoryUsage())', returnByValue: true })) as { result: { value: string } };
    const usage = JSON.parse(result.value) as NodeJS.MemoryUsage;
    // `external` includes `arrayBuffers`.
    return usage.heapUsed + usage.external;
  } finally {
    socket.close();
  }
}
