// The subset of autocannon 9's programmatic API the benchmark uses (the
// package ships no type declarations).
declare module 'autocannon' {
  import type { EventEmitter } from 'node:events';

  export interface AutocannonRequest {
    method?: string;
    path?: string;
    headers?: Record<string, string>;
    body?: string;
    onResponse?: (status: number, body: string, context: Record<string, unknown>, headers: Record<string, string>) => void;
  }

  export interface AutocannonOptions {
    url: string;
    connections?: number;
    duration?: number;
    sampleInt?: number;
    amount?: number;
    overallRate?: number;
    timeout?: number;
    pipelining?: number;
    title?: string;
    requests?: AutocannonRequest[];
  }

  export interface AutocannonResult {
    duration: number;
    errors: number;
    timeouts: number;
    non2xx: number;
    mismatches: number;
    '2xx': number;
    requests: { total: number; average: number; sent: number };
  }

  export interface AutocannonInstance extends EventEmitter {
    stop(): void;
  }

  function autocannon(options: AutocannonOptions, callback: (error: Error | null, result: AutocannonResult) => void): AutocannonInstance;
  export default autocannon;
}
