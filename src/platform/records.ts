// The platform's JSON shapes, as the gateway reads them. The shapes come from the
// contract (openapi/platform.yaml, generated into openapi/platform.ts by
// `npm run openapi:types`); the sandbox derives its records from the same file.
import type { components } from '../../openapi/platform.ts';

/** The contract's schemas by name, e.g. `PlatformSchema['Document']`. */
export type PlatformSchema = components['schemas'];

/**
 * What the gateway may receive where the contract promises `T`. Enum values widen
 * to string on purpose: the platform may add values, and the gateway maps unknown
 * ones to UNKNOWN instead of failing. Every field may be absent or null: the
 * gateway checks at run time only what it relies on (platform/pages.ts), and a
 * field the platform leaves out must read as null, not crash a resolver.
 */
export type Received<T> = T extends string
  ? string
  : T extends readonly (infer Item)[]
    ? Received<Item>[]
    : T extends object
      ? { [K in keyof T]?: Received<NonNullable<T[K]>> | null }
      : T;

/** A record the gateway identifies by `id`: the one field its runtime check guarantees. */
export type ReceivedRecord<T> = Received<T> & { id: string };

/** createdBy / updatedBy. `id` is blank or absent for `internal` actors. */
export type ActorRecord = Received<PlatformSchema['Actor']>;
