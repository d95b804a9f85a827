import type { ActorType, Resolvers } from '../generated/graphql.ts';
import type { PlatformSchema } from '../platform/records.ts';
import { enumMapping } from '../platform/values.ts';
import { DateScalar, DateTime, JSONObject } from './scalars.ts';

// Schema value → platform value; `satisfies` makes a missing or extra value a compile error.
const actorTypes = enumMapping({
  EMPLOYEE: 'employee',
  INTERNAL: 'internal',
  OPERATOR_EMPLOYEE: 'operator_employee',
  SERVICE_ACCOUNT: 'service-account',
} satisfies Record<Exclude<ActorType, 'UNKNOWN'>, PlatformSchema['ActorType']>);

const Actor: Resolvers['Actor'] = {
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
