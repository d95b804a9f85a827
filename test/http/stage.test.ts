import { describe, expect, it } from '@jest/globals';
import type { IncomingMessage } from 'node:http';
import { isGraphQLPath, pathOf } from '../../src/http/stage.ts';

const pathOfUrl = (url: string | undefined) => pathOf({ url } as IncomingMessage);

describe('pathOf', () => {
  it('is the path without the query string', () => {
    expect(pathOfUrl('/graphql?query=%7B%7D&x=1')).toBe('/graphql');
    expect(pathOfUrl('/a/b')).toBe('/a/b');
    expect(pathOfUrl('/?')).toBe('/');
  });

  it('reads the path of an absolute-form target, and takes a target it cannot parse as it is', () => {
    expect(pathOfUrl('http://gateway.example:4000/graphql?x=1')).toBe('/graphql');
    expect(pathOfUrl('*')).toBe('*');
  });

  it('is / for a request without a target', () => {
    expect(pathOfUrl(undefined)).toBe('/');
  });
});

describe('isGraphQLPath', () => {
  it.each(['/graphql', '/GRAPHQL', '/GraphQL/', '/graphql/anything'])('takes %s', (path) => {
    expect(isGraphQLPath(path)).toBe(true);
  });

  it.each(['/graphq', '/graphqlx', '/graphql.json', '//graphql', 'graphql', '/api/graphql', ''])('refuses %j', (path) => {
    expect(isGraphQLPath(path)).toBe(false);
  });
});
