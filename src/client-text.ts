// Text a client chose (an operation name, an argument, a variable's value) is repeated
// in error messages, log lines and metric labels. Each of those is cut to a short
// prefix, so what a client sends can never make an answer, a log or /metrics large.

/** Marks a cut: the text went on beyond this point. */
const CUT_MARK = '…';

/** No error message is longer than this, whatever it quotes (a backstop behind the per-echo cut). */
export const MAX_MESSAGE_CHARS = 1_024;

/** `text` itself when it has at most `max` characters, else its first `max` characters and `…` (never half a surrogate pair). */
export function clip(text: string, max: number): string {
  if (text.length <= max) return text;
  let end = max;
  const last = text.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end -= 1;
  return `${text.slice(0, end)}${CUT_MARK}`;
}

const isSpace = (code: number): boolean => code === 0x20 || code === 0x0a || code === 0x09 || code === 0x0d;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/**
 * An error message with every long quoted part and every long word cut to `max`
 * characters: messages quote client text in double quotes (graphql-js, the
 * gateway) or repeat it as a word (an id in a platform message). One pass, so
 * the work is linear in the message whatever it holds (an unclosed quote runs
 * to the end); the result is at most MAX_MESSAGE_CHARS long.
 */
export function clipEchoes(message: string, max: number): string {
  if (message.length <= max) return message;
  let out = '';
  let i = 0;
  const n = message.length;
  while (i < n && out.length <= MAX_MESSAGE_CHARS) {
    const code = message.charCodeAt(i);
    if (code === QUOTE) {
      let j = i + 1;
      while (j < n && message.charCodeAt(j) !== QUOTE) j += message.charCodeAt(j) === BACKSLASH ? 2 : 1;
      const closed = j < n;
      out += `"${clip(message.slice(i + 1, Math.min(j, n, i + 2 + max)), max)}${closed ? '"' : ''}`;
      i = j + 1;
    } else if (isSpace(code)) {
      out += message[i];
      i += 1;
    } else {
      let j = i + 1;
      while (j < n && !isSpace(message.charCodeAt(j)) && message.charCodeAt(j) !== QUOTE) j += 1;
      out += clip(message.slice(i, Math.min(j, i + 1 + max)), max);
      i = j;
    }
  }
  return clip(out, MAX_MESSAGE_CHARS);
}

/** `value` with `clipEchoes` applied to every string inside it (objects and arrays, a few levels deep). */
export function clipEchoesDeep(value: unknown, max: number, depth = 4): unknown {
  if (typeof value === 'string') return clipEchoes(value, max);
  if (depth === 0 || value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map((item) => clipEchoesDeep(item, max, depth - 1));
  return Object.fromEntries(Object.entries(value).map(([key, item]) => [clip(key, max), clipEchoesDeep(item, max, depth - 1)]));
}
