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
 * in our messages, extensions or logs. Cut out: the whole token, and every run of TOKEN_ECHO_MIN or more
 * characters that also occur in a row in the token, whether written raw or percent-encoded (`%2F`, also
 * mixed with raw characters). A run is found by its windows of TOKEN_ECHO_MIN characters: every window
 * that is a piece of the token is cut, so a shortened, extended or partly encoded echo goes too.
 * Only failures pay for this: a redactor is made per failed call.
 */
export function tokenRedactor(authorization: string | undefined): Redactor {
  const token = authorization?.replace(/^\S+\s+/, '').trim();
  if (!token) return NO_REDACTION;
  const pieces = new Set<string>();
  for (let i = 0; i + TOKEN_ECHO_MIN <= token.length; i++) pieces.add(token.slice(i, i + TOKEN_ECHO_MIN));
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
const HEX = /^[0-9a-fA-F]{2}$/;

function withoutPieces(text: string, pieces: ReadonlySet<string>): string {
  // The text as decoded (one level of percent-encoding, ASCII only), each decoded character remembering
  // where it came from in the text.
  let decoded = '';
  const from: number[] = [];
  const to: number[] = [];
  for (let i = 0; i < text.length; ) {
    const code = text[i] === '%' && HEX.test(text.slice(i + 1, i + 3)) ? Number.parseInt(text.slice(i + 1, i + 3), 16) : -1;
    const width = code >= 0 && code < 0x80 ? 3 : 1;
    decoded += width === 3 ? String.fromCharCode(code) : text[i];
    from.push(i);
    to.push(i + width);
    i += width;
  }
  const cut = new Uint8Array(text.length);
  let found = false;
  for (let j = 0; j + TOKEN_ECHO_MIN <= decoded.length; j++) {
    if (!pieces.has(decoded.slice(j, j + TOKEN_ECHO_MIN))) continue;
    cut.fill(1, from[j]!, to[j + TOKEN_ECHO_MIN - 1]!);
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
