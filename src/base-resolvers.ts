import type { Resolvers } from './generated/graphql.ts';
import { actorTypes } from './platform/values.ts';
import { DateScalar, DateTime, JSONObject } from './scalars.ts';

export const Actor: Resolvers['Actor'] = {
  // The platform leaves the id blank for internal actors; blank is not an id.
  id: (actor) => (actor.id ? actor.id : null),
  type: (actor) => actorTypes.fromPlatform(actor.type, 'UNKNOWN') ?? 'UNKNOWN',
};

export const baseResolvers: Resolvers = {
  DateTime,
  Date: DateScalar,
  JSONObject,
  Actor,
};
