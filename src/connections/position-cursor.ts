/**
 * Cursor format version 1: JSON of a position and the binding's hash, base64url. Gateways made it
 * before cursors carried anchors; it is still read, as a plain offset, and still made for
 * connections without an order and for records whose id is too long to anchor.
 */
export const POSITION_VERSION = 1;

export function packPosition(position: number, hash: string): string {
  return Buffer.from(JSON.stringify({ v: POSITION_VERSION, p: position, b: hash })).toString('base64url');
}

/** The fields of a version 1 cursor's payload; null when the bytes are not JSON of an object. */
export function unpackPosition(bytes: Buffer): Partial<Record<'v' | 'p' | 'b', unknown>> | null {
  let payload: unknown = null;
  try {
    payload = JSON.parse(bytes.toString());
  } catch {
    // Not JSON: no payload.
  }
  // JSON's null is an object to typeof, and no payload either.
  return typeof payload !== 'object' || Array.isArray(payload) ? null : (payload as Partial<Record<'v' | 'p' | 'b', unknown>> | null);
}
