import { describe, expect, it } from '@jest/globals';
import { isEnumType, isInputObjectType, isInterfaceType, isObjectType, isUnionType, isScalarType } from 'graphql';
import { buildSchema } from '../src/schema/schema.ts';

// The SDL is the documentation clients read in the playground and in generated
// code: every type, field, argument, input field and enum value says what it is.
const FEDERATION = new Set(['_Service', '_Entity', '_Any', 'FieldSet', 'link__Import', 'link__Purpose', 'federation__FieldSet', 'federation__Policy', 'federation__Scope', 'federation__ContextFieldValue']);
const BUILT_IN = new Set(['String', 'Int', 'Float', 'Boolean', 'ID']);

describe('schema documentation', () => {
  it('describes every type, field, argument, input field and enum value', () => {
    const schema = buildSchema();
    const missing: string[] = [];
    for (const type of Object.values(schema.getTypeMap())) {
      if (type.name.startsWith('__') || FEDERATION.has(type.name) || BUILT_IN.has(type.name)) continue;
      if (!['Query', 'Mutation'].includes(type.name) && !type.description) missing.push(type.name);
      if (isObjectType(type) || isInterfaceType(type)) {
        for (const field of Object.values(type.getFields())) {
          if (field.name.startsWith('_')) continue;
          if (!field.description) missing.push(`${type.name}.${field.name}`);
          for (const arg of field.args) if (!arg.description) missing.push(`${type.name}.${field.name}(${arg.name})`);
        }
      } else if (isInputObjectType(type)) {
        for (const field of Object.values(type.getFields())) if (!field.description) missing.push(`${type.name}.${field.name}`);
      } else if (isEnumType(type)) {
        for (const value of type.getValues()) if (!value.description) missing.push(`${type.name}.${value.name}`);
      } else {
        expect(isUnionType(type) || isScalarType(type)).toBe(true);
      }
    }
    expect(missing).toEqual([]);
  });
});
