// JSON shapes shared by every area of the platform contract. Upstream values are
// typed loosely (string, not a union) on purpose: the platform may add values,
// and the gateway maps unknown ones to UNKNOWN instead of failing.

/** createdBy / updatedBy. `id` is blank or absent for `internal` actors. */
export interface ActorRecord {
  id?: string | null;
  type?: string | null;
}

