// The part of negotiator 1.1.0 the front door calls (no @types/negotiator is installed).
declare module 'negotiator' {
  import type { IncomingHttpHeaders } from 'node:http';

  export default class Negotiator {
    constructor(request: { headers: IncomingHttpHeaders });
    /** The most preferred of `available` by the Accept header (the first when there is none); undefined when none is acceptable. */
    mediaType(available?: readonly string[]): string | undefined;
  }
}
