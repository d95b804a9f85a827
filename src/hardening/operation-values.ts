import { Kind, valueFromASTUntyped, type DocumentNode, type FieldNode, type FragmentDefinitionNode, type OperationDefinitionNode } from 'graphql';

/** A request's variables, as sent. */
export type Variables = Record<string, unknown>;

/** A variable's value as sent; an inherited property (`constructor`, …) is not a variable that was sent. */
export function variableValue(variables: Variables, name: string): unknown {
  return Object.hasOwn(variables, name) ? variables[name] : undefined;
}

/**
 * The variables as execution sees them: the request's, plus the operation's default values for those
 * it leaves out. Without the defaults, `query($n: Int = 100)` would be priced at the default page size
 * and `$before: String = "…"` would look absent.
 */
export function withDefaults(operation: OperationDefinitionNode, variables: Variables): Variables {
  let effective = variables;
  for (const definition of operation.variableDefinitions ?? []) {
    const name = definition.variable.name.value;
    if (definition.defaultValue && !Object.hasOwn(variables, name)) {
      if (effective === variables) effective = { ...variables };
      effective[name] = valueFromASTUntyped(definition.defaultValue);
    }
  }
  return effective;
}

/**
 * What a verdict made before execution (the cost limit, the platform-call estimate) depends on
 * besides the document, as a key: the document's hash, the operation, and its declared variables
 * (only those: a variable name cannot hold the separators, while an undeclared key sent along
 * could). An integer counts by its value (page sizes), a list by its length and an object as one
 * (representations of `_entities`), null and any other value by whether it is given (`before`).
 */
export function variablesShapeKey(queryHash: string, operation: OperationDefinitionNode, variables: Variables): string {
  let key = `${queryHash}@${operation.name?.value ?? ''}`;
  for (const definition of operation.variableDefinitions ?? []) {
    const name = definition.variable.name.value;
    if (!Object.hasOwn(variables, name)) continue;
    const value = variables[name];
    if (typeof value === 'number' && Number.isInteger(value)) key += `|${name}=${value}`;
    else if (Array.isArray(value)) key += `|${name}#${value.length}`;
    else if (value === null) key += `|${name}~`;
    else if (typeof value === 'object') key += `|${name}#1`;
    else key += `|${name}?`;
  }
  return key;
}

/** An argument's value: undefined when it is not given (or its variable not sent), null when null, else the value or literal. */
export function argumentValue(field: FieldNode, name: string, variables: Variables): unknown {
  const argument = field.arguments?.find((arg) => arg.name.value === name);
  if (!argument) return undefined;
  if (argument.value.kind === Kind.NULL) return null;
  if (argument.value.kind === Kind.VARIABLE) return variableValue(variables, argument.value.name.value);
  return argument.value;
}

/** Whether a field walks its list backwards from the end: `last` given and `before` not. */
export function walksFromEnd(field: FieldNode, variables: Variables): boolean {
  const last = argumentValue(field, 'last', variables);
  const before = argumentValue(field, 'before', variables);
  return last !== undefined && last !== null && (before === undefined || before === null);
}

export function fragmentNamed(document: DocumentNode, name: string): FragmentDefinitionNode | undefined {
  return document.definitions.find((definition): definition is FragmentDefinitionNode => definition.kind === Kind.FRAGMENT_DEFINITION && definition.name.value === name);
}
