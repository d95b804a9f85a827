import { SANDBOX_SETTINGS } from '../sandbox/settings.ts';
import { SETTINGS } from './settings.ts';

// An environment variable that looks like one of the gateway's settings but is not one is ignored
// like any other variable: a misspelt limit (`RATE_LIMIT_PER_SECONDS=5`) would leave the limit off
// without a word. Start-up warns about each, naming the setting it most resembles.

/** Every variable the gateway reads (its own and those it passes to its embedded sandbox). */
const KNOWN: readonly string[] = [...new Set([...Object.keys(SETTINGS), ...Object.keys(SANDBOX_SETTINGS)])];

/** Beginnings of our settings' names that no other software's variables are expected to share. */
const OUR_PREFIXES = [
  'UPSTREAM_', 'RATE_LIMIT_', 'CURSOR_', 'SANDBOX_', 'COMPILED_', 'PERSISTED_QUER', 'TRUSTED_', 'CORS_', 'ADMIN_',
  'PAGE_SIZE_', 'AUTH_FAILURE_', 'READY_', 'MAX_QUERY_', 'SHUTDOWN_',
];

/** Edits (insertion, deletion, substitution, swap of neighbours) from `a` to `b`. */
export function editDistance(a: string, b: string): number {
  const rows = Array.from({ length: a.length + 1 }, (_, i) => Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(rows[i - 1]![j]! + 1, rows[i]![j - 1]! + 1, rows[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) best = Math.min(best, rows[i - 2]![j - 2]! + 1);
      rows[i]![j] = best;
    }
  }
  return rows[a.length]![b.length]!;
}

/** Close enough to be a slip: one edit in a short name (HOME is two from HOST), two in a long one. */
const closeEnough = (name: string, distance: number) => distance <= (name.length < 10 ? 1 : 2);

/** A warning per variable of `env` that resembles a setting without being one, in name order. */
export function settingTypos(env: Record<string, string | undefined>): string[] {
  const warnings: string[] = [];
  for (const name of Object.keys(env).sort()) {
    if (KNOWN.includes(name)) continue;
    const upper = name.toUpperCase();
    const prefix = OUR_PREFIXES.find((candidate) => upper.startsWith(candidate));
    // With one of our prefixes, the setting meant is one of that family.
    const candidates = prefix ? KNOWN.filter((known) => known.startsWith(prefix)) : KNOWN;
    const [nearest, distance] = candidates.map((known) => [known, editDistance(upper, known)] as const).reduce((best, next) => (next[1] < best[1] ? next : best));
    if (!prefix && !closeEnough(name, distance)) continue;
    warnings.push(`Warning: ${name} is not a setting of this gateway and is ignored: did you mean ${nearest}? (node dist/main.js --help lists the settings)`);
  }
  return warnings;
}
