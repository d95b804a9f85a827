import { clip } from '../client-text.ts';
import { badUserInput } from '../errors.ts';

/**
 * The contract's "string (UUID)": 8-4-4-4-12 hexadecimal digits in either case, the form the platform
 * reads its ids in (no braces, no `urn:uuid:`, any version). Compiled once: it runs on the request path.
 */
const UUID = /^[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}$/;

/** Longest piece of a refused id quoted back. */
const MAX_QUOTED_ID = 64;

/** An argument's path, as `extensions.field` carries it: `['filter', 'assignedTo', 1]`. */
export type ArgumentPath = readonly (string | number)[];

/** `filter.assignedTo[1]`: a path as a client writes it. */
function pathText(path: ArgumentPath): string {
  let text = '';
  for (const segment of path) text += typeof segment === 'number' ? `[${segment}]` : text === '' ? segment : `.${segment}`;
  return text;
}

/**
 * The one rule for an id the contract says is a UUID (document, Financial Account, template,
 * template version, assignee, entity ids), checked before any platform call in queries, mutations,
 * subscriptions and entity lookups alike: the id itself, or BAD_USER_INPUT naming the argument
 * (`extensions.field`). Without it a malformed id went to the platform as it was, and a subscription
 * polled with it every interval.
 */
export function uuidArgument(value: string, path: ArgumentPath): string {
  if (UUID.test(value)) return value;
  throw badUserInput(`${pathText(path)} must be a UUID such as 2b2be007-5446-4c55-9a88-9b68e639f075, got ${JSON.stringify(clip(value, MAX_QUOTED_ID))}`, { field: [...path] });
}
