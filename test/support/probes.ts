import { readdirSync, readFileSync } from 'node:fs';
import { request } from 'node:http';

export interface ProbeAnswer {
  status: number;
  contentType: string | undefined;
  text: string;
}

/** One GET on a fresh connection (as a kubelet's probe makes it); rejects when no whole answer arrives within `timeoutMs`. */
export function getOnce(url: string, timeoutMs = 5_000): Promise<ProbeAnswer> {
  return new Promise((resolve, reject) => {
    const req = request(url, { agent: false, timeout: timeoutMs });
    req.once('timeout', () => req.destroy(new Error(`no answer from ${url} within ${timeoutMs} ms`)));
    req.once('error', reject);
    req.once('response', (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.once('end', () => resolve({ status: res.statusCode ?? 0, contentType: res.headers['content-type'], text }));
    });
    req.end();
  });
}

/** Child pids of `pid`, from /proc: the workers of a group. */
export function childrenOf(pid: number): number[] {
  const found: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      if (Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === pid) found.push(Number(entry));
    } catch {
      // Gone in the meantime.
    }
  }
  return found.sort();
}
