import { isNonNullType, Kind, TypeInfo, visit, visitWithTypeInfo, type DocumentNode, type FragmentDefinitionNode, type GraphQLSchema, type OperationDefinitionNode } from 'graphql';

/**
 * The variables of an operation whose null or absence graphql-jit does not
 * treat as graphql-js does (graphql-js' `getArgumentValues` and `valueFromAST`):
 * - a variable inside a list or input-object literal: jit writes the value in
 *   unchecked, so a null reaches a non-null input field or list item, and a
 *   missing one becomes null instead of the field's default or an error;
 * - a whole argument of non-null type, and so the `if` of `@skip`/`@include`:
 *   a nullable variable with a default may stand there, and an explicit null
 *   must be refused (jit skips or includes silently, or answers an error
 *   graphql-js builds differently).
 * A variable used as a whole nullable argument is passed on alike by both.
 */
export function guardedVariables(schema: GraphQLSchema, document: DocumentNode, operation: OperationDefinitionNode): string[] {
  const guarded = new Set<string>();
  const typeInfo = new TypeInfo(schema);
  const visitor = visitWithTypeInfo(typeInfo, {
    Argument(node) {
      if (node.value.kind !== Kind.VARIABLE) {
        visit(node.value, { Variable: (variable) => void guarded.add(variable.name.value) });
        return;
      }
      const argument = typeInfo.getArgument();
      if (!argument || isNonNullType(argument.type)) guarded.add(node.value.name.value);
    },
  });
  for (const definition of [operation, ...fragmentsUsedBy(document, operation)]) visit(definition, visitor);
  return [...guarded];
}

/** The fragment definitions an operation spreads, directly or through other fragments. */
function fragmentsUsedBy(document: DocumentNode, operation: OperationDefinitionNode): FragmentDefinitionNode[] {
  const definitions = new Map<string, FragmentDefinitionNode>();
  for (const definition of document.definitions) if (definition.kind === Kind.FRAGMENT_DEFINITION) definitions.set(definition.name.value, definition);
  const used = new Map<string, FragmentDefinitionNode>();
  const walk = (node: OperationDefinitionNode | FragmentDefinitionNode): void => {
    visit(node, {
      FragmentSpread(spread) {
        const fragment = definitions.get(spread.name.value);
        if (!fragment || used.has(spread.name.value)) return;
        used.set(spread.name.value, fragment);
        walk(fragment);
      },
    });
  };
  walk(operation);
  return [...used.values()];
}

