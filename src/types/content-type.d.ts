// The part of content-type 1.0.5 the front door calls (no @types/content-type is installed).
declare module 'content-type' {
  import type { IncomingMessage, ServerResponse } from 'node:http';

  export interface ParsedMediaType {
    /** Lower-cased `type/subtype`. */
    type: string;
    /** Parameter names lower-cased, values unquoted. */
    parameters: Record<string, string>;
  }

  /** Throws a TypeError on a malformed header. */
  export function parse(input: string | IncomingMessage | ServerResponse): ParsedMediaType;
  export function format(media: ParsedMediaType): string;

  const contentType: { parse: typeof parse; format: typeof format };
  export default contentType;
}
