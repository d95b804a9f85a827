import { describe, expect, it } from '@jest/globals';
import { GraphQLError, locatedError, parse, type FieldNode, type GraphQLFormattedError, type OperationDefinitionNode } from 'graphql';
import type { Logger } from 'pino';
import { formatError } from '../src/format-error.ts';
import { runWithRequestId } from '../src/request/scope.ts';

const FIELD = (parse('{ document(id: $id) { id } }').definitions[0] as OperationDefinitionNode).selectionSet.selections[0] as FieldNode;
const LOCATIONS = [{ line: 1, column: 3 }];

/** formatError over a logger that keeps what is logged at error level. */
function formatter(production: boolean, echoChars = 80) {
  const logged: { fields: Record<string, unknown>; message: string }[] = [];
  const logger = { error: (fields: Record<string, unknown>, message: string) => void logged.push({ fields, message }) } as unknown as Logger;
  return { format: formatError({ production, echoChars, logger }), logged };
}

/** What Apollo hands formatError for `error`: its JSON form, code defaulted as Apollo does. */
function apolloFormatted(error: GraphQLError): GraphQLFormattedError {
  const json = error.toJSON();
  return { ...json, extensions: { code: 'INTERNAL_SERVER_ERROR', ...json.extensions } };
}

function answered(production: boolean, error: GraphQLError | unknown, formatted: GraphQLFormattedError, echoChars?: number) {
  const { format, logged } = formatter(production, echoChars);
  const answer = runWithRequestId('req-fmt', () => format(formatted, error));
  return { answer, logged };
}

describe('formatError: public errors', () => {
  it('keeps a public error as it is, with the request id', () => {
    const error = new GraphQLError('Not found on the platform', { path: ['document'], extensions: { code: 'NOT_FOUND', upstream: { status: 404 } } });
    const { answer, logged } = answered(true, error, error.toJSON());
    expect(answer).toEqual({ message: 'Not found on the platform', path: ['document'], extensions: { code: 'NOT_FOUND', upstream: { status: 404 }, requestId: 'req-fmt' } });
    expect(logged).toEqual([]);
  });

  it("gives graphql-js' refusal of an argument value the client's code, not an internal error", () => {
    for (const message of [
      'Argument "id" of non-null type "ID!" must not be null.',
      'Argument "id" of required type "ID!" was not provided.',
      'Argument "id" of required type "ID!" was provided the variable "$id" which was not provided a runtime value.',
      'Argument "first" has invalid value "x".',
    ]) {
      const error = locatedError(new GraphQLError(message, { nodes: [FIELD] }), [FIELD], ['document']);
      const { answer, logged } = answered(true, error, apolloFormatted(error));
      expect([answer.message, answer.extensions, logged]).toEqual([message, { code: 'BAD_USER_INPUT', requestId: 'req-fmt' }, []]);
    }
  });

  it('does not take a look-alike message for an argument refusal', () => {
    const thrown = new GraphQLError('Argument "id" of non-null type "ID!" must not be null.', { nodes: [FIELD], extensions: { code: 'FORBIDDEN' } });
    expect(answered(false, thrown, thrown.toJSON()).answer.extensions).toEqual({ code: 'FORBIDDEN', requestId: 'req-fmt' });
    const fromResolver = locatedError(new Error('Argument "id" of non-null type "ID!" must not be null.'), [FIELD], ['document']);
    expect(answered(true, fromResolver, apolloFormatted(fromResolver)).answer.message).toBe('Internal server error');
  });

  it("gives Apollo's persisted-query refusals their client codes", () => {
    const mismatch = new GraphQLError('provided sha does not match query');
    expect(answered(true, mismatch, apolloFormatted(mismatch)).answer).toEqual({ message: 'provided sha does not match query', extensions: { code: 'PERSISTED_QUERY_HASH_MISMATCH', requestId: 'req-fmt' } });
    const version = new GraphQLError('Unsupported persisted query version');
    expect(answered(true, version, apolloFormatted(version)).answer.extensions).toEqual({ code: 'BAD_REQUEST', requestId: 'req-fmt' });
  });

  it('cuts client text repeated in the message and the extensions, keeping stack frames whole', () => {
    const id = 'x'.repeat(30);
    const error = new GraphQLError(`Document "${id}" not found`, { extensions: { code: 'NOT_FOUND', given: { id, ids: [id] } } });
    const frame = `    at resolve (file:///src/documents/${'y'.repeat(40)}.ts:1:1)`;
    const formatted = { ...error.toJSON(), extensions: { ...error.extensions, stacktrace: [`GraphQLError: Document "${id}" not found`, frame] } };
    const { answer } = answered(false, error, formatted, 16);
    const cut = `${'x'.repeat(16)}…`;
    expect(answer).toEqual({
      message: `Document "${cut}" not found`,
      extensions: { code: 'NOT_FOUND', given: { id: cut, ids: [cut] }, requestId: 'req-fmt', stacktrace: [`GraphQLError: Document "${cut}" not found`, frame] },
    });
  });
});

describe('formatError: unexpected errors', () => {
  const cause = new TypeError('Cannot read properties of undefined (reading "name")');
  const error = locatedError(cause, [FIELD], ['document', 'owner']);

  it('are logged with the request id, the code, the path and the original cause', () => {
    const { logged } = answered(false, error, apolloFormatted(error));
    expect(logged).toEqual([
      {
        message: 'unexpected error',
        fields: {
          requestId: 'req-fmt',
          code: 'INTERNAL_SERVER_ERROR',
          path: ['document', 'owner'],
          error: { type: 'TypeError', message: 'Cannot read properties of undefined (reading "name")', stack: expect.any(Array) },
        },
      },
    ]);
    const { stack } = (logged[0]!.fields.error as { stack: string[] });
    expect(stack.length).toBeGreaterThan(0);
    expect(stack.length).toBeLessThanOrEqual(12);
    for (const frame of stack) expect(frame).toMatch(/^at /);
  });

  it('keep their message in development', () => {
    expect(answered(false, error, apolloFormatted(error)).answer).toEqual({
      message: 'Cannot read properties of undefined (reading "name")',
      locations: LOCATIONS,
      path: ['document', 'owner'],
      extensions: { code: 'INTERNAL_SERVER_ERROR', requestId: 'req-fmt' },
    });
  });

  it('are answered with no internals in production, their extensions and stack dropped', () => {
    const formatted = { ...apolloFormatted(error), extensions: { code: 'INTERNAL_SERVER_ERROR', secret: 'db://internal', stacktrace: ['TypeError: x', '    at y'] } };
    expect(answered(true, error, formatted).answer).toEqual({
      message: 'Internal server error',
      locations: LOCATIONS,
      path: ['document', 'owner'],
      extensions: { code: 'INTERNAL_SERVER_ERROR', requestId: 'req-fmt' },
    });
  });

  it('include an error whose code is none of the public ones', () => {
    const odd = new GraphQLError('library internals', { extensions: { code: 'SOME_LIBRARY_CODE' } });
    const development = answered(false, odd, odd.toJSON());
    expect(development.answer.extensions).toEqual({ code: 'SOME_LIBRARY_CODE', requestId: 'req-fmt' });
    expect(development.logged.map(({ fields }) => fields.code)).toEqual(['SOME_LIBRARY_CODE']);
    expect(answered(true, odd, odd.toJSON()).answer).toEqual({ message: 'Internal server error', extensions: { code: 'INTERNAL_SERVER_ERROR', requestId: 'req-fmt' } });
  });

  it('log a thrown value that is not an Error by its type', () => {
    const { logged } = answered(true, 'a string was thrown', { message: 'Unexpected error value: "a string was thrown"' });
    expect(logged.map(({ fields }) => fields.error)).toEqual([{ type: 'string', message: 'a string was thrown' }]);
  });
});
