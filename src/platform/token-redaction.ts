/** The shortest run of the caller's token that counts as an echo of it. */
export const TOKEN_ECHO_MIN = 8;

export interface Redactor {
  redact(text: string): string;
  /** How far past a cut a text must be read so that an echo straddling the cut is still seen whole. */
  reach: number;
}

export const NO_REDACTION: Redactor = { redact: (text) => text, reach: 0 };

/**
 * The platform may echo the caller's token in an error body ("Invalid token …"); it must not travel on
 * in our messages, extensions or logs (docs/security.md, "Tenant isolation and credentials"). Cut out:
 * the whole token, and every run of TOKEN_ECHO_MIN or more characters that also occur in a row in the
 * token, or in its base64 or base64url encoding, as the text reads once normalised (normalised()): in
 * any letter case, with percent-encoding and HTML character references decoded to any depth, and with
 * whitespace and zero-width characters between characters ignored. A run is found by its windows of
 * TOKEN_ECHO_MIN characters: every window that is a piece of the token (or of its encoding) is cut,
 * with all it spans in the text, so a shortened, extended or partly encoded echo goes too. Only
 * failures pay for this: a redactor is made per failed call.
 */
export function tokenRedactor(authorization: string | undefined): Redactor {
  const token = authorization?.replace(/^\S+\s+/, '').trim();
  if (!token) return NO_REDACTION;
  const pieces = new Set<string>();
  if (token.length >= TOKEN_ECHO_MIN) for (const spelling of spellingsOf(token)) addWindows(pieces, spelling);
  return {
    redact(text) {
      const whole = text.split(token).join(REDACTED);
      return pieces.size === 0 ? whole : withoutPieces(whole, pieces);
    },
    // A percent-encoded character takes 3.
    reach: token.length * 3,
  };
}

const REDACTED = '[REDACTED]';

/**
 * The token as an echo may spell it, in lower case: itself, and its base64 and base64url encodings
 * from each of the three byte alignments it can have inside a longer encoded text (complete groups
 * only: a partial last group depends on what follows).
 */
function spellingsOf(token: string): string[] {
  const bytes = Buffer.from(token, 'utf8');
  const spellings = [token];
  for (let shift = 0; shift < 3; shift++) {
    const aligned = bytes.subarray(shift, shift + Math.floor((bytes.length - shift) / 3) * 3);
    spellings.push(aligned.toString('base64'), aligned.toString('base64url'));
  }
  return spellings.map(lowerAscii);
}

function addWindows(pieces: Set<string>, spelling: string): void {
  for (let i = 0; i + TOKEN_ECHO_MIN <= spelling.length; i++) pieces.add(spelling.slice(i, i + TOKEN_ECHO_MIN));
}

function lowerAscii(text: string): string {
  return text.replace(/[A-Z]/g, (letter) => letter.toLowerCase());
}

/** The normalised text, one UTF-16 unit per character, and the span of the original text each was read from. */
interface Normalised {
  text: string;
  from: Int32Array;
  to: Int32Array;
}

/** Between the characters of an echo, ignored: whitespace, zero-width characters, the soft hyphen. */
const IGNORED = /^[\s\u200b-\u200d\u2060\ufeff\u00ad]$/;
const HEX_DIGIT = /^[0-9a-fA-F]$/;
/** Named character references of the characters a token (RFC 6750's token68) and its encodings hold. */
const NAMED: Readonly<Record<string, string>> = {
  amp: '&', num: '#', percnt: '%', semi: ';', period: '.', lowbar: '_', plus: '+', sol: '/', equals: '=', colon: ':', nbsp: ' ', zwsp: '\u200b', shy: '\u00ad',
};
/** The longest character reference decoded (`&#x0010FFFF;`). */
const LONGEST_REFERENCE = 12;
const REFERENCE = /^&#(?:[xX]([0-9a-fA-F]{1,8})|([0-9]{1,8}));$|^&([a-z]+);$/;

/**
 * The text as an echo would read: ASCII percent-escapes (`%2F`) and HTML character references (`&#47;`,
 * `&#x2f;`, `&sol;`) decoded, again and again where decoding makes a new one (`%252F`, `&amp;#47;`),
 * ignored characters dropped, letters in lower case. Read once, left to right: each character is pushed
 * onto a stack, and a reference completed at its top is replaced with its character.
 */
function normalised(text: string): Normalised {
  const chars: string[] = [];
  const from = new Int32Array(text.length);
  const to = new Int32Array(text.length);
  let n = 0;
  for (let i = 0; i < text.length; i++) {
    chars[n] = text[i] as string;
    from[n] = i;
    to[n++] = i + 1;
    for (let decoded = decodeTop(chars, n); decoded !== null; decoded = decodeTop(chars, n)) {
      n -= decoded.width - 1;
      // A character outside the BMP is no character of a token68 token: one unit stands for it.
      chars[n - 1] = decoded.char.length === 1 ? decoded.char : '\ufffd';
      to[n - 1] = i + 1;
    }
  }
  let kept = 0;
  let out = '';
  for (let k = 0; k < n; k++) {
    const char = chars[k] as string;
    if (IGNORED.test(char)) continue;
    out += char;
    from[kept] = from[k] as number;
    to[kept++] = to[k] as number;
  }
  return { text: lowerAscii(out), from, to };
}

/** The character the top `width` entries of the stack (its first `n`) encode; null when they end no escape. */
function decodeTop(chars: readonly string[], n: number): { char: string; width: number } | null {
  const last = chars[n - 1] as string;
  if (n >= 3 && chars[n - 3] === '%' && HEX_DIGIT.test(chars[n - 2] as string) && HEX_DIGIT.test(last)) {
    // %80 and above are bytes of a multi-byte character, never one ASCII character of the token.
    const code = Number.parseInt((chars[n - 2] as string) + last, 16);
    return code < 0x80 ? { char: String.fromCharCode(code), width: 3 } : null;
  }
  if (last !== ';') return null;
  let start = n - 2;
  while (start >= 0 && n - start <= LONGEST_REFERENCE && chars[start] !== '&') start--;
  if (start < 0 || chars[start] !== '&') return null;
  const reference = REFERENCE.exec(chars.slice(start, n).join(''));
  if (reference === null) return null;
  const [, hexCode, decimalCode, name] = reference;
  let char: string | undefined;
  if (name !== undefined) char = Object.hasOwn(NAMED, name) ? NAMED[name] : undefined;
  else {
    const code = hexCode !== undefined ? Number.parseInt(hexCode, 16) : Number.parseInt(decimalCode as string, 10);
    char = code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : undefined;
  }
  return char === undefined ? null : { char, width: n - start };
}

function withoutPieces(text: string, pieces: ReadonlySet<string>): string {
  const { text: norm, from, to } = normalised(text);
  const cut = new Uint8Array(text.length);
  let found = false;
  for (let j = 0; j + TOKEN_ECHO_MIN <= norm.length; j++) {
    if (!pieces.has(norm.slice(j, j + TOKEN_ECHO_MIN))) continue;
    cut.fill(1, from[j], to[j + TOKEN_ECHO_MIN - 1]);
    found = true;
  }
  if (!found) return text;
  let out = '';
  for (let i = 0; i < text.length; i++) {
    if (!cut[i]) out += text[i];
    else if (i === 0 || !cut[i - 1]) out += REDACTED;
  }
  return out;
}
