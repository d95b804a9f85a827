import { describe, expect, it } from '@jest/globals';
import { Kind, parse, type FieldNode, type OperationDefinitionNode } from 'graphql';
import { argumentValue, fragmentNamed, variableValue, variablesShapeKey, walksFromEnd, withDefaults } from '../../src/hardening/operation-values.ts';

function operationOf(source: string): OperationDefinitionNode {
  return parse(source).definitions.find((definition): definition is OperationDefinitionNode => definition.kind === Kind.OPERATION_DEFINITION)!;
}

function fieldOf(source: string): FieldNode {
  return operationOf(source).selectionSet.selections[0] as FieldNode;
}

describe('variableValue', () => {
  it('is the sent value, null included, and undefined for an inherited property', () => {
    expect(variableValue({ n: 3, m: null }, 'n')).toBe(3);
    expect(variableValue({ n: 3, m: null }, 'm')).toBeNull();
    expect(variableValue({}, 'constructor')).toBeUndefined();
    expect(variableValue({}, 'toString')).toBeUndefined();
  });
});

describe('withDefaults', () => {
  it('adds the default of a variable left out, keeps a sent one (null included), and leaves the request unchanged', () => {
    const operation = operationOf('query($n: Int = 100, $b: String = "c1", $o: In = { a: [1, 2] }, $x: Int) { a }');
    const sent = { b: null };
    expect(withDefaults(operation, sent)).toEqual({ n: 100, b: null, o: { a: [1, 2] } });
    expect(sent).toEqual({ b: null });
  });

  it('returns the very variables when no default is needed', () => {
    const sent = { n: 1 };
    expect(withDefaults(operationOf('query($n: Int = 100, $x: Int) { a }'), sent)).toBe(sent);
    expect(withDefaults(operationOf('{ a }'), sent)).toBe(sent);
  });

  it('takes a default for a variable named like an inherited property', () => {
    expect(withDefaults(operationOf('query($constructor: Int = 5) { a }'), {})).toEqual({ constructor: 5 });
  });
});

describe('variablesShapeKey', () => {
  const operation = operationOf('query Page($n: Int, $r: [_Any!], $o: In, $c: String, $z: String, $f: Float, $absent: Int) { a }');

  it('counts an integer by value, a list by length, an object as one, null and anything else by presence', () => {
    expect(variablesShapeKey('h1', operation, { n: 10, r: [1, 2, 3], o: { a: 1 }, c: 'cursor-1', z: null, f: 1.5 })).toBe('h1@Page|n=10|r#3|o#1|c?|z~|f?');
  });

  it('is the same key for other cursors and other objects, another for another page size', () => {
    const a = variablesShapeKey('h1', operation, { n: 10, c: 'x' });
    expect(variablesShapeKey('h1', operation, { n: 10, c: 'y' })).toBe(a);
    expect(variablesShapeKey('h1', operation, { n: 11, c: 'x' })).not.toBe(a);
    expect(variablesShapeKey('h1', operation, { n: 10, c: null })).not.toBe(a);
    expect(variablesShapeKey('h1', operation, { n: 10 })).not.toBe(a);
  });

  it('ignores undeclared variables, which could hold the separators', () => {
    expect(variablesShapeKey('h1', operation, { n: 1, 'x|n=2': 1 })).toBe('h1@Page|n=1');
  });

  it('has an empty name for an anonymous operation', () => {
    expect(variablesShapeKey('h2', operationOf('{ a }'), { n: 1 })).toBe('h2@');
  });
});

describe('argumentValue', () => {
  it('is undefined when not given or its variable not sent, null when null, the value of a variable, else the literal node', () => {
    const field = fieldOf('{ a(first: 5, after: null, last: $l, before: $b) }');
    expect(argumentValue(field, 'missing', {})).toBeUndefined();
    expect(argumentValue(field, 'after', {})).toBeNull();
    expect(argumentValue(field, 'last', { l: 3 })).toBe(3);
    expect(argumentValue(field, 'before', {})).toBeUndefined();
    expect(argumentValue(field, 'first', {})).toEqual(expect.objectContaining({ kind: Kind.INT, value: '5' }));
    expect(argumentValue(fieldOf('{ a }'), 'first', {})).toBeUndefined();
  });
});

describe('walksFromEnd', () => {
  it.each([
    ['{ a(last: 3) }', {}, true],
    ['{ a(last: 3, before: null) }', {}, true],
    ['{ a(last: $n, before: $b) }', { n: 2, b: null }, true],
    ['{ a(last: $n, before: $b) }', { n: 2 }, true],
    ['{ a(last: 3, before: "c") }', {}, false],
    ['{ a(last: $n, before: $b) }', { n: 2, b: 'c' }, false],
    ['{ a(last: null) }', {}, false],
    ['{ a(last: $n) }', {}, false],
    ['{ a(first: 3) }', {}, false],
  ])('%s with %j: %s', (source, variables, walks) => {
    expect(walksFromEnd(fieldOf(source), variables)).toBe(walks);
  });
});

describe('fragmentNamed', () => {
  it('finds a fragment definition by name, and nothing for an operation of that name', () => {
    const document = parse('query F { a } fragment F on Query { a } fragment G on Query { b }');
    expect(fragmentNamed(document, 'G')?.name.value).toBe('G');
    expect(fragmentNamed(document, 'F')?.kind).toBe(Kind.FRAGMENT_DEFINITION);
    expect(fragmentNamed(document, 'H')).toBeUndefined();
  });
});
