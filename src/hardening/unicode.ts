import type { ApolloServerPlugin, BaseContext, GraphQLRequestListener } from '@apollo/server';
import { GraphQLError } from 'graphql';
import { ErrorCode } from '../errors.ts';

/** Segments of a reported path; deeper ones are cut, so a hostile nesting cannot blow up the message. */
const MAX_PATH_SEGMENTS = 16;

interface Step {
  value: unknown;
  segment: string;
  parent: Step | undefined;
}

function pathOf(step: Step, root: string): string {
  const segments: string[] = [];
  for (let at: Step = step; at.parent; at = at.parent) segments.push(at.segment);
  segments.reverse();
  const shown = segments.slice(0, MAX_PATH_SEGMENTS).join('');
  return root + shown + (segments.length > MAX_PATH_SEGMENTS ? '…' : '');
}

/**
 * Whether every string and object key in `value` is well formed: the check every request makes,
 * without the path bookkeeping (an object per value) that only a refusal needs. Iterative, as below.
 */
function wellFormedThroughout(value: unknown): boolean {
  const pending: unknown[] = [value];
  while (pending.length > 0) {
    const current = pending.pop();
    if (typeof current === 'string') {
      if (!current.isWellFormed()) return false;
    } else if (Array.isArray(current)) {
      for (const item of current) pending.push(item);
    } else if (current !== null && typeof current === 'object') {
      for (const key in current) {
        if (!Object.hasOwn(current, key)) continue;
        if (!key.isWellFormed()) return false;
        pending.push((current as Record<string, unknown>)[key]);
      }
    }
  }
  return true;
}

/**
 * Where in `value` a string (or object key) holds a lone UTF-16 surrogate, as a
 * path like `$.input.metadata.note`; undefined when every string is well formed.
 * Iterative, so a variable nested thousands of levels deep cannot overflow the stack.
 */
export function loneSurrogatePath(value: unknown, root: string): string | undefined {
  if (wellFormedThroughout(value)) return undefined;
  const pending: Step[] = [{ value, segment: '', parent: undefined }];
  while (pending.length > 0) {
    const step = pending.pop()!;
    const current = step.value;
    if (typeof current === 'string') {
      if (!current.isWellFormed()) return pathOf(step, root);
    } else if (Array.isArray(current)) {
      current.forEach((item, index) => pending.push({ value: item, segment: `[${index}]`, parent: step }));
    } else if (current !== null && typeof current === 'object') {
      for (const [key, item] of Object.entries(current)) {
        const child = { value: item, segment: `.${key}`, parent: step };
        if (!key.isWellFormed()) return pathOf(child, root);
        pending.push(child);
      }
    }
  }
  return undefined;
}

/**
 * JSON can smuggle a lone surrogate (`"\ud800"`) into a variable, although no
 * UTF-8 text can hold one. Passed on, it either breaks encoding (an id in a
 * platform URL) or is silently replaced with U+FFFD (a name sent to the
 * platform). Refused before execution instead, as the client's mistake. The
 * document itself needs no check: graphql-js's lexer already rejects them.
 */
export function wellFormedVariablesPlugin(): ApolloServerPlugin {
  // No per-request state: every request shares one listener.
  const listener: GraphQLRequestListener<BaseContext> = {
    async didResolveOperation({ request }) {
      const path = loneSurrogatePath(request.variables ?? {}, '$');
      if (path === undefined) return;
      throw new GraphQLError(`Variable "${path.replace(/^\$\./, '$')}" holds a lone UTF-16 surrogate, which is not valid Unicode text`, {
        extensions: { code: ErrorCode.BAD_USER_INPUT, http: { status: 400 } },
      });
    },
  };
  return {
    async requestDidStart() {
      return listener;
    },
  };
}
