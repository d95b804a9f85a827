import { createCipheriv, createDecipheriv, createSecretKey, hkdfSync, randomBytes, type KeyObject } from 'node:crypto';

/**
 * The sealing of a page of anchored cursors: AES-256-GCM from Node's crypto, used as documented
 * (createCipheriv with a 12-byte nonce and a 16-byte tag, setAAD, update, final, getAuthTag). One
 * seal per page: what a page's cursors place by (its account, its caller's tag, the anchors of its
 * first and last records) is enciphered once, and each cursor carries the sealed page and its own
 * index in it (anchored-cursor.ts). No MAC, cipher mode or padding is written here.
 *
 * Keys. Everything comes from a secret: CURSOR_SECRET, shared by the replicas and kept across
 * restarts; without it a secret each instance draws at start-up (its workers share it). HKDF-SHA256
 * derives from the secret its id (4 bytes a cursor carries in clear, so that a cursor of another
 * secret is told from a tampered one), and the key of the binding MAC (binding-hash.ts). A process seals with a
 * key of its own: HKDF-SHA256 of the secret under a salt of 16 random bytes drawn when the secret is
 * set; the cursor carries the salt, and any process holding the secret derives the key again.
 *
 * Nonces. Under its own key, a process numbers its seals: the nonce is a 96-bit counter from 0, so
 * no nonce repeats under one key, however many pages are sealed (a random 96-bit nonce would
 * allow only about 2^32 seals per key). Keys repeat only if two processes drew the same 128-bit salt.
 *
 * Rotation. A previous secret may be given as well: cursors sealed under it are still opened, and
 * every new one is sealed under the current secret.
 */

const SECRET_ID_BYTES = 4;
const SALT_BYTES = 16;
const NONCE_BYTES = 12;
const TAG_BYTES = 16;
const CIPHER = 'aes-256-gcm';
const KEY_BYTES = 32;

interface SecretKeys {
  /** The secret itself, as HKDF's input keying material. */
  material: KeyObject;
  id: Buffer;
  /** The key of the cursors' binding MAC (binding-hash.ts). */
  binding: KeyObject;
}

interface SealingKey {
  secret: SecretKeys;
  salt: Buffer;
  key: KeyObject;
  /** The next nonce's number. */
  sealed: number;
}

/** The keys of a secret: a CURSOR_SECRET's UTF-8 bytes, or bytes drawn at random. */
function secretKeys(secret: Buffer): SecretKeys {
  const material = createSecretKey(secret);
  const derive = (info: string, length: number) => Buffer.from(hkdfSync('sha256', material, Buffer.alloc(0), info, length));
  return { material, id: derive('gateway cursor secret id', SECRET_ID_BYTES), binding: createSecretKey(derive('gateway cursor bindings', KEY_BYTES)) };
}

function pageKey(secret: SecretKeys, salt: Buffer): KeyObject {
  return createSecretKey(Buffer.from(hkdfSync('sha256', secret.material, salt, 'gateway cursor pages', KEY_BYTES)));
}

function sealingKey(secret: SecretKeys): SealingKey {
  const salt = randomBytes(SALT_BYTES);
  return { secret, salt, key: pageKey(secret, salt), sealed: 0 };
}

/** Opened page keys by secret id and salt: the other processes of the deployment, derived once each. */
const OPENING_KEYS_KEPT = 256;

class CursorKeys {
  readonly current: SecretKeys;
  readonly previous: SecretKeys | undefined;
  readonly sealing: SealingKey;
  readonly bindingKeys: readonly KeyObject[];
  readonly #opening = new Map<string, KeyObject>();

  constructor(current: SecretKeys, previous: SecretKeys | undefined) {
    this.current = current;
    this.previous = previous;
    this.sealing = sealingKey(current);
    this.bindingKeys = previous === undefined ? [current.binding] : [current.binding, previous.binding];
  }

  /** The secret of this id, if it is one this process holds. */
  secretOf(id: Buffer): SecretKeys | undefined {
    if (id.equals(this.current.id)) return this.current;
    return this.previous !== undefined && id.equals(this.previous.id) ? this.previous : undefined;
  }

  /** The page key of `salt` under `secret`; kept only once a page opened with it (`keep`), so forged salts do not push out real ones. */
  openingKey(secret: SecretKeys, salt: Buffer): { key: KeyObject; keep: () => void } {
    if (secret === this.sealing.secret && salt.equals(this.sealing.salt)) return { key: this.sealing.key, keep: () => undefined };
    const name = `${secret.id.toString('hex')}:${salt.toString('hex')}`;
    const kept = this.#opening.get(name);
    if (kept !== undefined) return { key: kept, keep: () => undefined };
    const key = pageKey(secret, salt);
    return {
      key,
      keep: () => {
        if (this.#opening.size >= OPENING_KEYS_KEPT) this.#opening.delete(this.#opening.keys().next().value as string);
        this.#opening.set(name, key);
      },
    };
  }

  /** How many other processes' page keys are kept (for tests). */
  get kept(): number {
    return this.#opening.size;
  }
}

let keys = new CursorKeys(secretKeys(randomBytes(KEY_BYTES)), undefined);

/**
 * Seals cursors under keys derived from `secret` (a fresh random one without it), and opens those
 * sealed under `previous` too, while a rotation lasts.
 */
export function useCursorSecret(secret: string | undefined, previous?: string): void {
  keys = new CursorKeys(secretKeys(secret === undefined ? randomBytes(KEY_BYTES) : Buffer.from(secret)), previous === undefined ? undefined : secretKeys(Buffer.from(previous)));
}

/**
 * The keys of the binding MAC (binding-hash.ts): the current secret's, then the previous one's while
 * a rotation lasts. A new array whenever the secret changes.
 */
export function bindingKeys(): readonly KeyObject[] {
  return keys.bindingKeys;
}

/** How many page keys of other processes (other salts) this process keeps, derived once each (for tests). */
export function keptOpeningKeys(): number {
  return keys.kept;
}

/** A secret for one instance's workers to share when no CURSOR_SECRET is set (the primary draws it). */
export function drawnCursorSecret(): string {
  return randomBytes(KEY_BYTES).toString('base64url');
}

/** What a sealed page carries in clear before its ciphertext: the secret's id, the salt of the sealing key, the nonce. */
const SEAL_HEADER_BYTES = SECRET_ID_BYTES + SALT_BYTES + NONCE_BYTES;
/** What a seal adds to its plain bytes: the header before them, the tag after. */
export const SEAL_OVERHEAD_BYTES = SEAL_HEADER_BYTES + TAG_BYTES;

/** The key new seals are made under: another one once the secret changes (useCursorSecret). */
export function currentSealingKey(): object {
  return keys.sealing;
}

/**
 * Seals `plain` into `out`, whose first `clearBytes` bytes hold what the cursor carries in clear
 * before the seal and are authenticated with it: from `clearBytes` on, `out` receives the seal's
 * header, then the ciphertext, then the tag (`SEAL_OVERHEAD_BYTES` + `plain.length` bytes), so
 * that the authenticated bytes (the clear bytes and the header) are one run and a page's bytes are
 * written once, without copies to join them.
 */
export function sealInto(out: Buffer, clearBytes: number, plain: Buffer): void {
  const sealing = keys.sealing;
  let at = clearBytes;
  at += sealing.secret.id.copy(out, at);
  at += sealing.salt.copy(out, at);
  // The counter in the nonce's last 6 bytes (48 bits, big-endian; the 6 before them zero): 2^48 seals,
  // far more than a process makes, and writeUIntBE refuses a larger count rather than repeat a nonce.
  out.fill(0, at, at + NONCE_BYTES - 6);
  out.writeUIntBE(sealing.sealed++, at + NONCE_BYTES - 6, 6);
  const nonce = out.subarray(at, at + NONCE_BYTES);
  at += NONCE_BYTES;
  const cipher = createCipheriv(CIPHER, sealing.key, nonce, { authTagLength: TAG_BYTES });
  cipher.setAAD(out.subarray(0, at));
  at += cipher.update(plain).copy(out, at);
  at += cipher.final().copy(out, at);
  cipher.getAuthTag().copy(out, at);
}

/**
 * Seals `plain` with the sealing key, authenticating `clear` (what the cursor carries in clear
 * before the seal) with it. Returns the seal's header, then the ciphertext, then the tag.
 */
export function seal(clear: Buffer, plain: Buffer): Buffer {
  const out = Buffer.allocUnsafe(clear.length + SEAL_OVERHEAD_BYTES + plain.length);
  clear.copy(out);
  sealInto(out, clear.length, plain);
  return out.subarray(clear.length);
}

/** Why a sealed page did not open: the keys of its secret are not held here, or its bytes changed. */
export type SealRefusal = 'other keys' | 'tampered';

export interface Opened {
  plain: Buffer;
}

/** The plain bytes of `sealed` (a seal's output, after `clear`), or why it cannot be opened. */
export function open(clear: Buffer, sealed: Buffer): Opened | SealRefusal {
  const secret = keys.secretOf(sealed.subarray(0, SECRET_ID_BYTES));
  if (secret === undefined) return 'other keys';
  if (sealed.length < SEAL_HEADER_BYTES + TAG_BYTES) return 'tampered';
  const salt = sealed.subarray(SECRET_ID_BYTES, SECRET_ID_BYTES + SALT_BYTES);
  const nonce = sealed.subarray(SECRET_ID_BYTES + SALT_BYTES, SEAL_HEADER_BYTES);
  const { key, keep } = keys.openingKey(secret, salt);
  const decipher = createDecipheriv(CIPHER, key, nonce, { authTagLength: TAG_BYTES });
  decipher.setAAD(Buffer.concat([clear, sealed.subarray(0, SEAL_HEADER_BYTES)]));
  decipher.setAuthTag(sealed.subarray(sealed.length - TAG_BYTES));
  let plain: Buffer;
  try {
    plain = Buffer.concat([decipher.update(sealed.subarray(SEAL_HEADER_BYTES, sealed.length - TAG_BYTES)), decipher.final()]);
  } catch {
    return 'tampered';
  }
  keep();
  return { plain };
}

/**
 * The warning a production start-up prints without CURSOR_SECRET: the key it draws is this
 * instance's alone (its workers share it), so the other replicas, and this one after a restart,
 * refuse its cursors. Undefined when there is nothing to warn about.
 */
export function cursorSecretWarning(production: boolean, secret: string | undefined, workers: number): string | undefined {
  if (!production || secret !== undefined) return undefined;
  const who = workers > 1 ? `this instance's ${workers} workers share a key drawn at start-up` : 'this instance seals cursors under a key drawn at start-up';
  return `CURSOR_SECRET is not set: ${who}, so every other replica, and this one after a restart, refuses its cursors (CURSOR_OTHER_KEYS) and clients lose their place in every list. Set the same CURSOR_SECRET (32 characters or more) on every replica.`;
}
