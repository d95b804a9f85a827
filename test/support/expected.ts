// Independent re-statements of how platform JSON must look through the gateway,
// so end-to-end tests compare against the sandbox's raw records, not the gateway's code.

const ACTOR_TYPES: Record<string, string> = {
  employee: 'EMPLOYEE',
  internal: 'INTERNAL',
  operator_employee: 'OPERATOR_EMPLOYEE',
  'service-account': 'SERVICE_ACCOUNT',
};

/** `2026-03-04T10:15:30.123+0000` → `2026-03-04T10:15:30.123Z`. */
export function isoInstant(platform: string | null | undefined): string | null {
  if (!platform) return null;
  return new Date(platform.replace(/([+-]\d{2})(\d{2})$/, '$1:$2')).toISOString();
}

export function actor(a: { id?: string | null; type?: string | null } | null | undefined) {
  if (!a) return null;
  return { id: a.id ? a.id : null, type: ACTOR_TYPES[a.type ?? ''] ?? 'UNKNOWN' };
}

/** The business-account id the given demo token belongs to. */
export function accountOf(sandbox: { tokens: { token: string; businessAccountId: string }[] }, token: string): string {
  return sandbox.tokens.find((t) => t.token === token)!.businessAccountId;
}

/** Stable sort by keys, then id ascending — the platform's deterministic order. */
export function sortRecords<T extends { id: string }>(records: readonly T[], keys: [(r: T) => string | number | boolean | null | undefined, 'ASC' | 'DESC'][]): T[] {
  const cmp = (a: unknown, b: unknown) => (a === b ? 0 : a === null || a === undefined ? 1 : b === null || b === undefined ? -1 : (a as number) < (b as number) ? -1 : 1);
  return [...records].sort((x, y) => {
    for (const [get, dir] of keys) {
      const c = cmp(get(x), get(y));
      if (c !== 0) return dir === 'ASC' ? c : -c;
    }
    return x.id < y.id ? -1 : x.id > y.id ? 1 : 0;
  });
}
