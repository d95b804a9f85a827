import { createCipheriv, createDecipheriv, hkdfSync } from 'node:crypto';
import { afterEach, describe, expect, it } from '@jest/globals';
import { cursorSecretWarning, drawnCursorSecret, keptOpeningKeys, open, seal, useCursorSecret } from '../../src/connections/cursor-seal.ts';

const SECRET = 'replicas share this secret, 32+ chars';
const PREVIOUS = 'the secret before the rotation, 32+ chars';
const CLEAR = Buffer.from('version and binding');
const PLAIN = Buffer.from('the anchors of a page');

/** Where a seal's parts begin: secret id, salt, nonce, ciphertext; the tag is its last 16 bytes. */
const AT = { salt: 4, nonce: 20, sealed: 32 } as const;
const TAG_BYTES = 16;

const secretId = (secret: string) => Buffer.from(hkdfSync('sha256', secret, Buffer.alloc(0), 'gateway cursor secret id', 4));
const pageKey = (secret: string, salt: Buffer) => Buffer.from(hkdfSync('sha256', secret, salt, 'gateway cursor pages', 32));

/** A seal opened by hand, as docs/security.md describes it: AES-256-GCM, the clear bytes and the header authenticated. */
function openByHand(secret: string, clear: Buffer, sealed: Buffer): Buffer {
  const decipher = createDecipheriv('aes-256-gcm', pageKey(secret, sealed.subarray(AT.salt, AT.nonce)), sealed.subarray(AT.nonce, AT.sealed), { authTagLength: 16 });
  decipher.setAAD(Buffer.concat([clear, sealed.subarray(0, AT.sealed)]));
  decipher.setAuthTag(sealed.subarray(sealed.length - TAG_BYTES));
  return Buffer.concat([decipher.update(sealed.subarray(AT.sealed, sealed.length - TAG_BYTES)), decipher.final()]);
}

/** `bytes` with bit 0 of the byte at `at` flipped. */
function flipped(bytes: Buffer, at: number): Buffer {
  const copy = Buffer.from(bytes);
  copy[at] = (copy[at] as number) ^ 1;
  return copy;
}

afterEach(() => useCursorSecret(undefined));

describe('seal', () => {
  it("writes the secret's id, the process's salt, a counter nonce, the ciphertext and the 16-byte tag", () => {
    useCursorSecret(SECRET);
    const seals = [seal(CLEAR, PLAIN), seal(CLEAR, PLAIN), seal(CLEAR, PLAIN)];
    for (const [number, sealed] of seals.entries()) {
      expect(sealed).toHaveLength(AT.sealed + PLAIN.length + TAG_BYTES);
      expect(sealed.subarray(0, AT.salt)).toEqual(secretId(SECRET));
      expect(sealed.subarray(AT.salt, AT.nonce)).toEqual(seals[0]!.subarray(AT.salt, AT.nonce));
      expect(sealed.subarray(AT.nonce, AT.sealed)).toEqual(Buffer.from([...Buffer.alloc(11), number]));
      expect(openByHand(SECRET, CLEAR, sealed)).toEqual(PLAIN);
    }
    // The ciphertext of the same bytes differs with the nonce, and holds nothing of them in clear.
    expect(seals[1]!.subarray(AT.sealed)).not.toEqual(seals[0]!.subarray(AT.sealed));
    expect(seals[0]!.includes(PLAIN.subarray(0, 8))).toBe(false);
  });

  it('numbers its seals from 0 again under a new salt when the secret is set again', () => {
    useCursorSecret(SECRET);
    const first = [seal(CLEAR, PLAIN), seal(CLEAR, PLAIN)];
    useCursorSecret(SECRET);
    const again = seal(CLEAR, PLAIN);
    expect(again.subarray(AT.salt, AT.nonce)).not.toEqual(first[0]!.subarray(AT.salt, AT.nonce));
    expect(again.subarray(AT.nonce, AT.sealed)).toEqual(Buffer.alloc(12));
    expect(openByHand(SECRET, CLEAR, again)).toEqual(PLAIN);
  });

  it('is the AES-256-GCM of Node, byte for byte, under the key HKDF-SHA256 derives from the secret and the salt', () => {
    useCursorSecret(SECRET);
    const sealed = seal(CLEAR, PLAIN);
    const header = sealed.subarray(0, AT.sealed);
    const cipher = createCipheriv('aes-256-gcm', pageKey(SECRET, sealed.subarray(AT.salt, AT.nonce)), sealed.subarray(AT.nonce, AT.sealed), { authTagLength: 16 });
    cipher.setAAD(Buffer.concat([CLEAR, header]));
    expect(sealed).toEqual(Buffer.concat([header, cipher.update(PLAIN), cipher.final(), cipher.getAuthTag()]));
  });

  it('seals under a secret of its own drawn at random without CURSOR_SECRET', () => {
    useCursorSecret(undefined);
    const sealed = seal(CLEAR, PLAIN);
    expect(sealed.subarray(0, AT.salt)).not.toEqual(secretId(SECRET));
    expect(open(CLEAR, sealed)).toEqual({ plain: PLAIN });
    useCursorSecret(undefined);
    expect(open(CLEAR, sealed)).toBe('other keys');
  });
});

describe('open', () => {
  it('gives back the plain bytes of a seal, an empty one included', () => {
    useCursorSecret(SECRET);
    expect(open(CLEAR, seal(CLEAR, PLAIN))).toEqual({ plain: PLAIN });
    expect(open(CLEAR, seal(CLEAR, Buffer.alloc(0)))).toEqual({ plain: Buffer.alloc(0) });
    expect(open(Buffer.alloc(0), seal(Buffer.alloc(0), PLAIN))).toEqual({ plain: PLAIN });
  });

  it('refuses as tampered a seal with any byte changed after its secret id, other clear bytes, or a seal cut short', () => {
    useCursorSecret(SECRET);
    const sealed = seal(CLEAR, PLAIN);
    for (let at = AT.salt; at < sealed.length; at++) expect([at, open(CLEAR, flipped(sealed, at))]).toEqual([at, 'tampered']);
    expect(open(flipped(CLEAR, 0), sealed)).toBe('tampered');
    expect(open(Buffer.concat([CLEAR, Buffer.from([0])]), sealed)).toBe('tampered');
    expect(open(CLEAR, sealed.subarray(0, sealed.length - 1))).toBe('tampered');
    // Shorter than a header and a tag: nothing to open, yet of this secret.
    expect(open(CLEAR, sealed.subarray(0, AT.sealed + TAG_BYTES - 1))).toBe('tampered');
    expect(open(CLEAR, sealed.subarray(0, AT.salt))).toBe('tampered');
    expect(open(CLEAR, sealed.subarray(0, AT.nonce))).toBe('tampered');
    expect(open(CLEAR, sealed.subarray(0, AT.nonce + 1))).toBe('tampered');
  });

  it('refuses as sealed under other keys a seal whose secret id is not one it holds, whatever its length', () => {
    useCursorSecret(SECRET);
    const sealed = seal(CLEAR, PLAIN);
    for (let at = 0; at < AT.salt; at++) expect(open(CLEAR, flipped(sealed, at))).toBe('other keys');
    expect(open(CLEAR, flipped(sealed, 0).subarray(0, AT.salt))).toBe('other keys');
    expect(open(CLEAR, Buffer.alloc(0))).toBe('other keys');
    useCursorSecret('another deployment, another secret, 32+ chars');
    expect(open(CLEAR, sealed)).toBe('other keys');
  });

  it("opens another process's seals under the same secret (a restart, another replica)", () => {
    useCursorSecret(SECRET);
    const other = seal(CLEAR, PLAIN);
    useCursorSecret(SECRET);
    expect(open(CLEAR, other)).toEqual({ plain: PLAIN });
    expect(open(CLEAR, seal(CLEAR, PLAIN))).toEqual({ plain: PLAIN });
  });

  it('opens seals of the previous secret during a rotation, seals under the current one, and drops the previous after it', () => {
    useCursorSecret(PREVIOUS);
    const before = seal(CLEAR, PLAIN);
    useCursorSecret(SECRET, PREVIOUS);
    expect(open(CLEAR, before)).toEqual({ plain: PLAIN });
    const during = seal(CLEAR, PLAIN);
    expect(during.subarray(0, AT.salt)).toEqual(secretId(SECRET));
    expect(openByHand(SECRET, CLEAR, during)).toEqual(PLAIN);
    // A seal of the previous secret, changed: tampered, not of other keys.
    expect(open(CLEAR, flipped(before, AT.sealed))).toBe('tampered');
    // A third secret's seal is of other keys during a rotation as well.
    useCursorSecret('a third secret, of another deployment, 32+ chars');
    const third = seal(CLEAR, PLAIN);
    useCursorSecret(SECRET, PREVIOUS);
    expect(open(CLEAR, third)).toBe('other keys');
    expect(open(CLEAR, before)).toEqual({ plain: PLAIN });
    useCursorSecret(SECRET);
    expect(open(CLEAR, before)).toBe('other keys');
    expect(open(CLEAR, during)).toEqual({ plain: PLAIN });
  });

  it("keeps another process's page key once a page opened with it, not for a seal that did not open", () => {
    useCursorSecret(SECRET);
    const others = [seal(CLEAR, PLAIN)];
    useCursorSecret(SECRET);
    others.push(seal(CLEAR, PLAIN));
    useCursorSecret(SECRET);
    // Its own seals need no key kept.
    expect(open(CLEAR, seal(CLEAR, PLAIN))).toEqual({ plain: PLAIN });
    expect(keptOpeningKeys()).toBe(0);
    // A forged salt of the secret does not open: its key is not kept.
    expect(open(CLEAR, flipped(others[0]!, AT.salt))).toBe('tampered');
    expect(open(flipped(CLEAR, 1), others[0]!)).toBe('tampered');
    expect(keptOpeningKeys()).toBe(0);
    expect(open(CLEAR, others[0]!)).toEqual({ plain: PLAIN });
    expect(keptOpeningKeys()).toBe(1);
    expect(open(CLEAR, others[0]!)).toEqual({ plain: PLAIN });
    expect(keptOpeningKeys()).toBe(1);
    expect(open(CLEAR, others[1]!)).toEqual({ plain: PLAIN });
    expect(keptOpeningKeys()).toBe(2);
    // A kept key still refuses a seal changed under it.
    expect(open(CLEAR, flipped(others[0]!, AT.sealed))).toBe('tampered');
    expect(keptOpeningKeys()).toBe(2);
  });

  it("keeps at most 256 other processes' page keys, and still opens the seals of the ones it let go", () => {
    const others: Buffer[] = [];
    for (let process = 0; process < 258; process++) {
      useCursorSecret(SECRET);
      others.push(seal(CLEAR, PLAIN));
    }
    useCursorSecret(SECRET);
    for (const [count, sealed] of others.entries()) {
      expect(open(CLEAR, sealed)).toEqual({ plain: PLAIN });
      expect(keptOpeningKeys()).toBe(Math.min(count + 1, 256));
    }
    expect(open(CLEAR, others[0]!)).toEqual({ plain: PLAIN });
    expect(keptOpeningKeys()).toBe(256);
  });
});

describe('drawnCursorSecret', () => {
  it('draws 32 random bytes as base64url text, another each time', () => {
    const secrets = [drawnCursorSecret(), drawnCursorSecret()];
    for (const secret of secrets) {
      expect(secret).toMatch(/^[A-Za-z0-9_-]{43}$/);
      expect(Buffer.from(secret, 'base64url')).toHaveLength(32);
    }
    expect(secrets[0]).not.toBe(secrets[1]);
  });
});

describe('cursorSecretWarning', () => {
  it('warns a production start-up without CURSOR_SECRET, naming its workers when it has more than one', () => {
    const rest = 'so every other replica, and this one after a restart, refuses its cursors (CURSOR_OTHER_KEYS) and clients lose their place in every list. Set the same CURSOR_SECRET (32 characters or more) on every replica.';
    expect(cursorSecretWarning(true, undefined, 1)).toBe(`CURSOR_SECRET is not set: this instance seals cursors under a key drawn at start-up, ${rest}`);
    expect(cursorSecretWarning(true, undefined, 2)).toBe(`CURSOR_SECRET is not set: this instance's 2 workers share a key drawn at start-up, ${rest}`);
    expect(cursorSecretWarning(true, undefined, 0)).toBe(`CURSOR_SECRET is not set: this instance seals cursors under a key drawn at start-up, ${rest}`);
  });

  it('says nothing with CURSOR_SECRET set, or outside production', () => {
    expect(cursorSecretWarning(true, SECRET, 2)).toBeUndefined();
    expect(cursorSecretWarning(true, '', 1)).toBeUndefined();
    expect(cursorSecretWarning(false, undefined, 2)).toBeUndefined();
    expect(cursorSecretWarning(false, SECRET, 1)).toBeUndefined();
  });
});
