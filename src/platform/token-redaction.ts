export interface Redactor {
  redact(text: string): string;
  /** How far past a cut a text must be read so that an echo straddling the cut is still seen whole. */
  reach: number;
}

export const NO_REDACTION: Redactor = { redact: (text) => text, reach: 0 };

/** The most characters one character of the token takes in the longest spelling read (`&amp;#x0061;`). */
const LONGEST_SPELLING = 12;

/**
 * The platform may echo the caller's token in an error body ("Invalid token …"); it must not travel on
 * in our messages, extensions or logs (docs/security.md, "Tenant isolation and credentials"). Cut out:
 * the token itself, exactly (or cut short by at most four characters at its ends, with eight left at
 * least: the rest could be guessed), in any spelling that decodes to it: percent-encoding (`%2F`, `%u002F`),
 * JSON escapes (`\u002f`, nested to any depth), HTML character references (decimal or hexadecimal,
 * with or without `;`, and the named ones of the characters a token holds), its characters joined by
 * one separator repeated (`a.b.c`, `a b c`), its hex, its base64 and base64url (also inside a longer
 * encoded text), and a base64 text that decodes to any of these (base64 of base64, of the whole
 * header). Nothing else: no letter case ignored, no run of characters the token merely shares with a
 * text, so an ordinary word or an id that occurs inside the token comes through. Only failures pay for
 * this: a redactor is made per failed call.
 */
export function tokenRedactor(authorization: string | undefined): Redactor {
  const token = authorization?.replace(/^\S+\s+/, '').trim();
  if (!token) return NO_REDACTION;
  const spellings = spellingsOf(token);
  return {
    redact: (text) => withoutEchoes(text, token, spellings),
    reach: token.length * LONGEST_SPELLING,
  };
}

const REDACTED = '[REDACTED]';

/** Bytes of the token a base64 spelling must cover at least: fewer could be an ordinary word. */
const MIN_ENCODED_BYTES = 6;

/**
 * The token's encodings, as they read once decoded text is encoded: its hex in either case, and its
 * base64 and base64url from each of the three byte alignments it can have inside a longer encoded
 * text (complete groups only: a partial group at either end depends on what surrounds the token).
 */
function spellingsOf(token: string): string[] {
  const bytes = Buffer.from(token, 'utf8');
  const hex = bytes.toString('hex');
  const spellings = new Set([hex, hex.toUpperCase()]);
  for (let shift = 0; shift < 3; shift++) {
    const aligned = bytes.subarray(shift, shift + Math.floor((bytes.length - shift) / 3) * 3);
    if (aligned.length < Math.max(MIN_ENCODED_BYTES, bytes.length - 4)) continue;
    spellings.add(aligned.toString('base64'));
    spellings.add(aligned.toString('base64url'));
  }
  return [...spellings];
}

/** The most characters an echo may lack at its ends and still be cut: the rest could be guessed. */
const MOST_CHARACTERS_LACKING = 4;
/** The fewest characters of the token a cut echo holds. */
const FEWEST_CHARACTERS_ECHOED = 8;

/**
 * The token, then the token cut short by up to MOST_CHARACTERS_LACKING characters at its ends (an
 * echo the platform truncated leaves only a guess): never a shorter piece of it, which a word or
 * an id may be.
 */
function nearlyWhole(token: string): string[] {
  const pieces = [token];
  for (let lacking = 1; lacking <= MOST_CHARACTERS_LACKING; lacking++) {
    if (token.length - lacking < FEWEST_CHARACTERS_ECHOED) break;
    for (let start = 0; start <= lacking; start++) pieces.push(token.slice(start, token.length - (lacking - start)));
  }
  return pieces;
}

/** The normalised text, one UTF-16 unit per character, and the span of the original text each was read from. */
interface Normalised {
  text: string;
  from: Int32Array;
  to: Int32Array;
}

/** Dropped wherever they stand: characters that show nothing (zero-width, the soft hyphen). */
const INVISIBLE = /^[\u200b-\u200d\u2060\ufeff\u00ad]$/;
const HEX_DIGIT = /^[0-9a-fA-F]$/;
const DIGIT = /^[0-9]$/;
/** Named character references of the characters a token (RFC 6750's token68) and its encodings hold. */
const NAMED: Readonly<Record<string, string>> = {
  amp: '&', num: '#', percnt: '%', semi: ';', period: '.', lowbar: '_', plus: '+', sol: '/', bsol: '\\', equals: '=', colon: ':', nbsp: ' ', zwsp: '\u200b', shy: '\u00ad',
};
/** The longest character reference decoded (`&#x0010FFFF;`). */
const LONGEST_REFERENCE = 12;
const REFERENCE = /^&#(?:[xX]([0-9a-fA-F]{1,8})|([0-9]{1,8}));?$|^&([a-z]+);$/;
/** A numeric reference still open: `&#47` or `&#x2f` before a character that cannot continue it. */
const OPEN_REFERENCE = /&#(?:[xX][0-9a-fA-F]{1,8}|[0-9]{1,8})$/;
const JSON_ESCAPES: Readonly<Record<string, string>> = { '\\': '\\', '/': '/', '"': '"' };

/**
 * The text as an echo would read: percent-escapes (`%2F`, `%u002F`), JSON escapes (`\u002f`, `\\`,
 * `\/`) and HTML character references decoded, again and again where decoding makes a new one
 * (`%252F`, `&amp;#47;`, `\\u002f`), invisible characters dropped. Read once, left to right: each
 * character is pushed onto a stack, and an escape completed at its top is replaced with its character.
 */
function normalised(text: string): Normalised {
  const chars: string[] = [];
  const from = new Int32Array(text.length + 1);
  const to = new Int32Array(text.length + 1);
  let n = 0;
  const settle = (end: number) => {
    for (let decoded = decodeTop(chars, n); decoded !== null; decoded = decodeTop(chars, n)) {
      n -= decoded.width - 1;
      // A character outside the BMP is no character of a token68 token: one unit stands for it.
      chars[n - 1] = decoded.char.length === 1 ? decoded.char : '\ufffd';
      to[n - 1] = end;
    }
  };
  /** A numeric reference without its `;` ends at the first character that cannot continue it. */
  const closeOpenReference = (next: string | undefined) => {
    const open = OPEN_REFERENCE.exec(chars.slice(Math.max(0, n - LONGEST_REFERENCE), n).join(''));
    if (open === null || next === ';' || (next !== undefined && (open[0][2] === 'x' || open[0][2] === 'X' ? HEX_DIGIT : DIGIT).test(next))) return;
    const reference = decodeReference(open[0]);
    if (reference === null) return;
    const end = to[n - 1] as number;
    n -= open[0].length - 1;
    chars[n - 1] = reference.length === 1 ? reference : '\ufffd';
    to[n - 1] = end;
    settle(end);
  };
  for (let i = 0; i < text.length; i++) {
    closeOpenReference(text[i]);
    chars[n] = text[i] as string;
    from[n] = i;
    to[n++] = i + 1;
    settle(i + 1);
  }
  closeOpenReference(undefined);
  let kept = 0;
  let out = '';
  for (let k = 0; k < n; k++) {
    const char = chars[k] as string;
    if (INVISIBLE.test(char)) continue;
    out += char;
    from[kept] = from[k] as number;
    to[kept++] = to[k] as number;
  }
  return { text: out, from, to };
}

function decodeReference(reference: string): string | null {
  const match = REFERENCE.exec(reference);
  if (match === null) return null;
  const [, hexCode, decimalCode, name] = match;
  if (name !== undefined) return Object.hasOwn(NAMED, name) ? (NAMED[name] as string) : null;
  const code = hexCode !== undefined ? Number.parseInt(hexCode, 16) : Number.parseInt(decimalCode as string, 10);
  return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : null;
}

const hexAt = (chars: readonly string[], from: number, count: number) => {
  for (let k = from; k < from + count; k++) if (!HEX_DIGIT.test(chars[k] ?? '')) return null;
  return Number.parseInt(chars.slice(from, from + count).join(''), 16);
};

/** The character the top `width` entries of the stack (its first `n`) encode; null when they end no escape. */
function decodeTop(chars: readonly string[], n: number): { char: string; width: number } | null {
  const last = chars[n - 1] as string;
  // %XX of an ASCII character: %80 and above are bytes of a multi-byte character, never one character of a token.
  const percent = n >= 3 && chars[n - 3] === '%' ? hexAt(chars, n - 2, 2) : null;
  if (percent !== null) return percent < 0x80 ? { char: String.fromCharCode(percent), width: 3 } : null;
  // %uXXXX (JavaScript's escape()) and \uXXXX (JSON).
  const unit = n >= 6 && chars[n - 5] === 'u' && (chars[n - 6] === '%' || chars[n - 6] === '\\') ? hexAt(chars, n - 4, 4) : null;
  if (unit !== null) return { char: String.fromCharCode(unit), width: 6 };
  if (n >= 2 && chars[n - 2] === '\\' && Object.hasOwn(JSON_ESCAPES, last)) return { char: JSON_ESCAPES[last] as string, width: 2 };
  if (last !== ';') return null;
  let start = n - 2;
  while (start >= 0 && n - start <= LONGEST_REFERENCE && chars[start] !== '&') start--;
  if (start < 0 || chars[start] !== '&') return null;
  const char = decodeReference(chars.slice(start, n).join(''));
  return char === null ? null : { char, width: n - start };
}

/** Base64 or base64url runs long enough to hold a token's encoding, which may decode to an echo. */
const BASE64_RUN = /[A-Za-z0-9+/_-]{12,}={0,2}/g;
/** How deep base64 is decoded: base64 of base64 of the token. */
const BASE64_DEPTH = 2;

/** The spans [start, end) of `text` (normalised) that spell the token. */
function echoSpans(text: string, token: string, spellings: readonly string[], depth: number): [number, number][] {
  const spans: [number, number][] = [];
  for (const spelling of [...nearlyWhole(token), ...spellings]) {
    for (let at = text.indexOf(spelling); at >= 0; at = text.indexOf(spelling, at + 1)) spans.push([at, at + spelling.length]);
  }
  // Its characters joined by one separator of up to three characters, the same between each two.
  if (token.length > 1) {
    for (let at = text.indexOf(token[0] as string); at >= 0; at = text.indexOf(token[0] as string, at + 1)) {
      for (let width = 1; width <= 3; width++) {
        const joined = [...token].join(text.slice(at + 1, at + 1 + width));
        if (text.startsWith(joined, at) && text[at + 1] !== token[1]) spans.push([at, at + joined.length]);
      }
    }
  }
  if (depth < BASE64_DEPTH) {
    for (const run of text.matchAll(BASE64_RUN)) {
      const decoded = Buffer.from(run[0], 'base64').toString('utf8');
      if (echoSpans(normalised(decoded).text, token, spellings, depth + 1).length > 0) spans.push([run.index, run.index + run[0].length]);
    }
  }
  return spans;
}

function withoutEchoes(text: string, token: string, spellings: readonly string[]): string {
  const norm = normalised(text);
  const spans = echoSpans(norm.text, token, spellings, 0);
  if (spans.length === 0) return text;
  const cut = new Uint8Array(text.length);
  for (const [start, end] of spans) cut.fill(1, norm.from[start], norm.to[end - 1]);
  let out = '';
  for (let i = 0; i < text.length; i++) {
    if (!cut[i]) out += text[i];
    else if (i === 0 || !cut[i - 1]) out += REDACTED;
  }
  return out;
}
