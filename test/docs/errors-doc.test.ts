import { readFileSync } from 'node:fs';
import { describe, expect, it } from '@jest/globals';
import { ApolloServerErrorCode } from '@apollo/server/errors';
import { ErrorCode } from '../../src/errors.ts';

// docs/errors.md holds the one table of public error codes; it and ErrorCode must agree exactly.

const DOC = readFileSync(new URL('../../docs/errors.md', import.meta.url), 'utf8');

/** The first column of the table under "### Codes". */
function documentedCodes(): string[] {
  const section = DOC.slice(DOC.indexOf('\n### Codes\n'));
  const table = /\n(\|[^\n]*\|\n)+/.exec(section)![0].trim().split('\n').slice(2);
  return table.map((row) => /^\| `([A-Z_]+)` \|/.exec(row)![1]!);
}

describe('public error codes', () => {
  it('docs/errors.md documents every ErrorCode once, and nothing else', () => {
    const documented = documentedCodes();
    expect(documented.filter((code, index) => documented.indexOf(code) !== index)).toEqual([]);
    expect([...documented].sort()).toEqual(Object.values(ErrorCode).sort());
  });

  it('ErrorCode spells each member as its value', () => {
    expect(Object.entries(ErrorCode).filter(([key, value]) => key !== value)).toEqual([]);
  });

  it('ErrorCode holds every code Apollo Server answers with', () => {
    const ours: readonly string[] = Object.values(ErrorCode);
    expect(Object.values(ApolloServerErrorCode).filter((code) => !ours.includes(code))).toEqual([]);
  });
});
