import { describe, expect, it } from '@jest/globals';
import { parseErrorBody } from '../../src/platform/error-body.ts';
import { NO_REDACTION, tokenRedactor } from '../../src/platform/token-redaction.ts';

// docs/security.md, "Tenant isolation and credentials": the caller's token is cut from every text
// taken from a platform error body, in every spelling that decodes to it exactly, and nothing else is.

/** A token with a word, the tenant's id and the characters URL, HTML and base64 encode. */
const TOKEN = 'platform-session-3f6c1e2a-8b4d-4c7e-9f10-2a5b6c7d8e01.k9Zq/X+w';
const redact = tokenRedactor(`Bearer ${TOKEN}`).redact;

const chars = [...TOKEN];
const code = (char: string) => char.charCodeAt(0);
const hex2 = (char: string) => code(char).toString(16).padStart(2, '0');
const hex4 = (char: string) => code(char).toString(16).padStart(4, '0');
const b64 = (text: string) => Buffer.from(text).toString('base64');

const MUST_BE_CUT: [string, string, string][] = [
  ['the token as it is', `Invalid token ${TOKEN}.`, 'Invalid token [REDACTED].'],
  ['the token cut short by four characters (the rest is a guess)', `Invalid token ${TOKEN.slice(1, -3)}…`, 'Invalid token [REDACTED]…'],
  ['at the very start and end, twice', `${TOKEN} and ${TOKEN}`, '[REDACTED] and [REDACTED]'],
  ['URL-encoded (encodeURIComponent)', `token=${encodeURIComponent(TOKEN)}&x=1`, 'token=[REDACTED]&x=1'],
  ['every character percent-encoded, upper-case hex', `t=${chars.map((c) => `%${hex2(c).toUpperCase()}`).join('')};`, 't=[REDACTED];'],
  ['percent-encoded twice (%252F)', `t=${TOKEN.replace('/', '%252F').replace('+', '%252B')};`, 't=[REDACTED];'],
  ['%uXXXX, every character', `t=${chars.map((c) => `%u${hex4(c)}`).join('')};`, 't=[REDACTED];'],
  ['JSON \\u escapes, every character', `detail: ${chars.map((c) => `\\u${hex4(c)}`).join('')}`, 'detail: [REDACTED]'],
  ['nested JSON \\\\u escapes', `detail: ${chars.map((c) => `\\\\u${hex4(c)}`).join('')}`, 'detail: [REDACTED]'],
  ['JSON inside a JSON string', `body ${JSON.stringify(JSON.stringify({ token: TOKEN }))}`, `body "{\\"token\\":\\"[REDACTED]\\"}"`],
  ['a JSON-escaped slash', `t=${TOKEN.replace('/', '\\/')}`, 't=[REDACTED]'],
  ['HTML decimal references with ;', `<p>${chars.map((c) => `&#${code(c)};`).join('')}</p>`, '<p>[REDACTED]</p>'],
  ['HTML decimal references without ;', `<p>${chars.map((c) => `&#${code(c)}`).join('')}</p>`, '<p>[REDACTED]</p>'],
  ['HTML hex references with ;', `<p>${chars.map((c) => `&#x${hex2(c)};`).join('')}</p>`, '<p>[REDACTED]</p>'],
  ['HTML hex references without ;, upper-case X', `<p>${chars.map((c) => `&#X${hex2(c)}`).join('')}</p>`, '<p>[REDACTED]</p>'],
  ['HTML named references', `<p>${TOKEN.replace('/', '&sol;').replace('+', '&plus;').replace('.', '&period;')}</p>`, '<p>[REDACTED]</p>'],
  ['HTML references encoded twice', `<p>${TOKEN.replace('/', '&amp;#47;').replace('+', '&amp;plus;')}</p>`, '<p>[REDACTED]</p>'],
  ['base64', `auth=${b64(TOKEN)};`, 'auth=[REDACTED];'],
  ['base64url', `auth=${Buffer.from(TOKEN).toString('base64url')};`, 'auth=[REDACTED];'],
  ['base64 of the whole Authorization header', `h=${b64(`Bearer ${TOKEN}`)}`, 'h=[REDACTED]'],
  ['base64 of base64', `h=${b64(b64(TOKEN))}`, 'h=[REDACTED]'],
  ['base64 of a longer text holding it (user:token)', `h=${b64(`user:${TOKEN}`)}`, 'h=[REDACTED]'],
  // The group at its end mixes the token's last byte with padding: one byte, no echo.
  ['base64 inside a longer base64 text, at another alignment', `h=x${b64(`ab${TOKEN}`).slice(4)}`, `h=x[REDACTED]dw==`],
  ['hex, lower case', `id ${Buffer.from(TOKEN).toString('hex')}`, 'id [REDACTED]'],
  ['hex, upper case', `id ${Buffer.from(TOKEN).toString('hex').toUpperCase()}`, 'id [REDACTED]'],
  ['characters joined by dots', `t ${chars.join('.')} end`, 't [REDACTED] end'],
  ['characters joined by spaces', `t ${chars.join(' ')} end`, 't [REDACTED] end'],
  ['characters joined by ", "', `t ${chars.join(', ')} end`, 't [REDACTED] end'],
  ['zero-width characters between characters', `t ${chars.join('\u200b')} end`, 't [REDACTED] end'],
];

const MUST_COME_THROUGH: [string, string][] = [
  ['a word of the token (platform)', 'Exception type not in the platform registry'],
  ["the tenant's id, which the token holds", 'Business Account 3f6c1e2a-8b4d-4c7e-9f10-2a5b6c7d8e01 has no such exception'],
  ['a phrase sharing letters with the token', 'The platform session expired; sign in again'],
  ['the start of the token', 'platform-session-3f6c1e2a'],
  ['its last characters', 'k9Zq/X+w'],
  ['the token in another letter case (another string)', TOKEN.toUpperCase()],
  ['the scheme', 'Bearer scheme required'],
  ['an unrelated percent-escape', 'path a%2Fb not found'],
  ['an unrelated HTML reference', 'a &#47; b &amp; c'],
  ['unrelated base64', 'payload aGVsbG8gd29ybGQ= refused'],
  ['a run of base64 characters decoding to nothing of the token', 'QUJDREVGR0hJSktMTU5PUA'],
  ['a request id in hex', 'trace 0123456789abcdef0123456789abcdef'],
  ['some characters of the token joined by dots', 'p.l.a.t.f.o.r.m'],
  ['an unrelated JSON escape', 'name \\u0041cme'],
  ['an account name', 'Acme Payroll Inc'],
  ['a field error', 'createdAt must be a date-time'],
  ['another UUID', 'exception 9a2d4b6f-1c3e-4a5b-8d7c-6e5f4a3b2c02 not found'],
  ['a word sharing its prefix with the token', 'platform-session-expired'],
  ['nothing', ''],
  ['plain text with spaces', 'a b c d e f g h i j k'],
  ['the token with a character missing in the middle', TOKEN.replace('-8b4d', '8b4d')],
  ['the token lacking five characters at its ends', TOKEN.slice(3, -2)],
];

describe('tokenRedactor', () => {
  it.each(MUST_BE_CUT)('cuts the token: %s', (_, text, expected) => {
    expect(redact(text)).toBe(expected);
  });

  it.each(MUST_COME_THROUGH)('leaves the text as it is: %s', (_, text) => {
    expect(redact(text)).toBe(text);
  });

  it('has at least 20 rows each way', () => {
    expect([MUST_BE_CUT.length >= 20, MUST_COME_THROUGH.length >= 20]).toEqual([true, true]);
  });

  it("leaves 'Token is malformed' whole for a token of those letters", () => {
    const own = tokenRedactor('Bearer Tokenismalformed-7Q');
    expect(own.redact('Token is malformed')).toBe('Token is malformed');
    expect(own.redact('got Tokenismalformed-7Q')).toBe('got [REDACTED]');
  });

  it('needs a token: none, blank or a bare scheme redacts nothing', () => {
    for (const authorization of [undefined, '', '   ', 'Bearer ']) expect(tokenRedactor(authorization)).toBe(NO_REDACTION);
    expect([NO_REDACTION.redact('anything 0123456789'), NO_REDACTION.reach]).toEqual(['anything 0123456789', 0]);
  });

  it('takes the token after the scheme and any run of blanks; without a scheme the whole value is the token', () => {
    for (const authorization of ['Bearer \t  s3cr3t-t0ken', 'Bearer s3cr3t-t0ken ', 's3cr3t-t0ken']) {
      expect(tokenRedactor(authorization).redact('got s3cr3t-t0ken here')).toBe('got [REDACTED] here');
    }
  });

  it('reaches twelve characters per token character, the longest spelling read (&amp;#x0061;)', () => {
    expect(tokenRedactor('Bearer 0123456789').reach).toBe(120);
  });

  it('cuts the token in every text of a JSON error body', () => {
    const redactor = tokenRedactor(`Bearer ${TOKEN}`);
    const body = JSON.stringify({
      message: `Invalid token ${TOKEN}`,
      traceId: b64(TOKEN),
      errors: [{ path: 'authorization', message: chars.join('\u200b'), errorCode: encodeURIComponent(encodeURIComponent(TOKEN)) }],
    });
    expect(parseErrorBody(body, 'application/json', redactor)).toStrictEqual({
      message: 'Invalid token [REDACTED]',
      traceId: '[REDACTED]',
      errorCode: undefined,
      errors: [{ path: 'authorization', message: '[REDACTED]', errorCode: '[REDACTED]' }],
    });
  });
});
