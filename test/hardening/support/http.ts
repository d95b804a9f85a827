import { createHash } from 'node:crypto';
import { postJson, withoutCost } from '../../support/graphql-client.ts';

export interface RawResponse {
  status: number;
  contentType: string;
  text: string;
  /** The parsed body when it is JSON, without its cost (`withoutCost`); `text` is the body as sent. */
  json: { data?: Record<string, unknown> | null; errors?: { message: string; extensions?: Record<string, unknown> }[] } | undefined;
}

/** POSTs any body (string as is, anything else as JSON) to the gateway and reads the answer whatever its type. */
export async function post(url: string, body: unknown, headers: Record<string, string> = {}): Promise<RawResponse> {
  return read(await postJson(url, body, headers));
}

export async function read(response: Response): Promise<RawResponse> {
  const text = await response.text();
  const contentType = response.headers.get('content-type') ?? '';
  let json: RawResponse['json'];
  try {
    json = withoutCost(JSON.parse(text) as RawResponse['json']);
  } catch {
    json = undefined;
  }
  return { status: response.status, contentType, text, json };
}

export const sha256 = (text: string): string => createHash('sha256').update(text).digest('hex');
