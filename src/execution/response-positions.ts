import {
  getNamedType,
  isInterfaceType,
  isListType,
  isNonNullType,
  isObjectType,
  Kind,
  type DocumentNode,
  type FragmentDefinitionNode,
  type GraphQLNamedType,
  type GraphQLSchema,
  type GraphQLType,
  type OperationDefinitionNode,
  type SelectionSetNode,
} from 'graphql';

/** A position of the response: whether its value is non-null, and the positions under it by response key ('#' for a list's items), in document order. */
export interface Position {
  nonNull: boolean;
  order: number;
  children: Map<string, Position>;
}

/**
 * The response's positions for an operation: every field it selects, through
 * fragments and on every possible type, by response key. Where a key selects
 * fields of different types (on different possible types), a position is
 * non-null only if all of them are.
 */
export function responsePositions(schema: GraphQLSchema, document: DocumentNode, operation: OperationDefinitionNode): Position {
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const definition of document.definitions) if (definition.kind === Kind.FRAGMENT_DEFINITION) fragments.set(definition.name.value, definition);
  const root: Position = { nonNull: false, order: 0, children: new Map() };
  const rootType = schema.getRootType(operation.operation);
  const fill = (position: Position, parent: GraphQLNamedType, selections: SelectionSetNode, seen: Set<string>): void => {
    for (const selection of selections.selections) {
      if (selection.kind === Kind.FRAGMENT_SPREAD) {
        const fragment = fragments.get(selection.name.value);
        if (!fragment || seen.has(fragment.name.value)) continue;
        fill(position, schema.getType(fragment.typeCondition.name.value) ?? parent, fragment.selectionSet, new Set([...seen, fragment.name.value]));
      } else if (selection.kind === Kind.INLINE_FRAGMENT) {
        fill(position, selection.typeCondition ? (schema.getType(selection.typeCondition.name.value) ?? parent) : parent, selection.selectionSet, seen);
      } else {
        const key = selection.alias?.value ?? selection.name.value;
        const field = isObjectType(parent) || isInterfaceType(parent) ? parent.getFields()[selection.name.value] : undefined;
        let type: GraphQLType | undefined = field?.type;
        let child = position.children.get(key);
        const nonNull = type !== undefined && isNonNullType(type);
        if (child) child.nonNull &&= nonNull;
        else position.children.set(key, (child = { nonNull, order: position.children.size, children: new Map() }));
        // Down through lists to the named type; each list level is a '#' position.
        let at = child;
        type = type && isNonNullType(type) ? type.ofType : type;
        while (type && isListType(type)) {
          const itemNonNull = isNonNullType(type.ofType);
          let item = at.children.get('#');
          if (item) item.nonNull &&= itemNonNull;
          else at.children.set('#', (item = { nonNull: itemNonNull, order: 0, children: new Map() }));
          at = item;
          type = isNonNullType(type.ofType) ? type.ofType.ofType : type.ofType;
        }
        if (selection.selectionSet && type) fill(at, getNamedType(type), selection.selectionSet, seen);
      }
    }
  };
  if (rootType) fill(root, rootType, operation.selectionSet, new Set());
  return root;
}

/** The position of a response path (undefined past the known positions). */
export function positionOf(root: Position, path: ReadonlyArray<string | number>): Position | undefined {
  let at: Position | undefined = root;
  for (const key of path) at = at?.children.get(typeof key === 'number' ? '#' : key);
  return at;
}

/** Negative when path `a` comes first in the response (document order of keys, then list index). */
export function comparePaths(root: Position, a: ReadonlyArray<string | number>, b: ReadonlyArray<string | number>): number {
  let at: Position | undefined = root;
  for (let i = 0; i < Math.min(a.length, b.length); i += 1) {
    const [x, y] = [a[i]!, b[i]!];
    if (x !== y) {
      if (typeof x === 'number' && typeof y === 'number') return x - y;
      const [px, py] = [at?.children.get(String(x)), at?.children.get(String(y))];
      return (px?.order ?? Number.MAX_SAFE_INTEGER) - (py?.order ?? Number.MAX_SAFE_INTEGER);
    }
    at = at?.children.get(typeof x === 'number' ? '#' : x);
  }
  return a.length - b.length;
}

