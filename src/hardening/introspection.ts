import { GraphQLError, type ValidationRule } from 'graphql';

const INTROSPECTION_REFUSED_MESSAGE =
  'GraphQL introspection is not allowed: the query contained __schema or __type. Set INTROSPECTION=true on the gateway to allow it.';

/**
 * Apollo's own rule (its `introspection: false`) tells the caller to "pass
 * introspection: true to ApolloServer", which an operator of this gateway
 * cannot do: this one names the variable instead. `__typename` stays allowed
 * (clients need it for caching and unions). A validation rule, so the
 * refusal is GRAPHQL_VALIDATION_FAILED with HTTP 400 and nothing executes.
 */
export const noIntrospection: ValidationRule = (context) => ({
  Field(node) {
    if (node.name.value === '__schema' || node.name.value === '__type') {
      context.reportError(new GraphQLError(INTROSPECTION_REFUSED_MESSAGE, { nodes: [node], extensions: { validationErrorCode: 'INTROSPECTION_DISABLED' } }));
    }
  },
});
