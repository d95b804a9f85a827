import { SANDBOX_SETTINGS } from './sandbox-settings.ts';
import { SETTINGS } from './settings.ts';

// An environment variable that looks like one of the gateway's settings but is not one is ignored
// like any other variable: a misspelt limit (`RATE_LIMIT_PER_SECONDS=5`) would leave the limit off
// without a word. Start-up warns about each, naming the setting it most resembles.

/** Every variable the gateway reads (its own and those it passes to its embedded sandbox). */
const KNOWN: readonly string[] = [...new Set([...Object.keys(SETTINGS), ...Object.keys(SANDBOX_SETTINGS)])];

/**
 * Beginnings the settings' names share with other software's variables, which therefore mark no
 * family: OpenTelemetry's standard variables (OTEL_*, read by its SDK too), and words too common on
 * their own (MAX_OLD_SPACE_SIZE, Python's REQUESTS_CA_BUNDLE, AUTH_TOKEN), whose families are the
 * longer beginnings of our names (MAX_QUERY, AUTH_FAILURE).
 */
const NOT_FAMILIES = { namespaces: ['OTEL'], words: ['MAX', 'REQUEST', 'AUTH'] };

/**
 * The variables Kubernetes sets for each Service (`UPSTREAM_SERVICE_HOST`, `RATE_LIMIT_PORT_443_TCP`
 * …): a Service named like a family of settings must not be warned about. `<SERVICE>_PORT` alone
 * is told by its value (`tcp://10.96.0.12:443`), as the name could be a slip (`CURSOR_PORT=1`).
 */
const isKubernetesService = (name: string, value: string | undefined) =>
  /_SERVICE_HOST$|_SERVICE_PORT(_[A-Z0-9_]+)?$|_PORT_\d+_(TCP|UDP|SCTP)(_(PROTO|PORT|ADDR))?$/.test(name) || (name.endsWith('_PORT') && /^(tcp|udp|sctp):\/\//.test(value ?? ''));

/** A word in the singular, so that QUERIES and QUERY, WORKERS and WORKER, read as one word. */
const singular = (word: string) => (word.endsWith('IES') ? `${word.slice(0, -3)}Y` : word.length > 3 && word.endsWith('S') && !word.endsWith('SS') ? word.slice(0, -1) : word);
const wordsOf = (name: string) => name.split('_').map(singular);

/** A family of settings: the leading words two or more settings share (RATE_LIMIT, UPSTREAM, CURSOR …), and those settings. */
interface Family {
  readonly name: string;
  readonly words: readonly string[];
  /** In the order of the settings' list, whose first of a family is its main one (RATE_LIMIT_PER_SECOND). */
  readonly members: readonly string[];
}

/** The families, derived from the settings' names. */
const FAMILIES: readonly Family[] = (() => {
  const members = new Map<string, string[]>();
  for (const setting of KNOWN) {
    const words = wordsOf(setting);
    for (let count = 1; count <= words.length; count++) {
      const name = words.slice(0, count).join('_');
      members.set(name, [...(members.get(name) ?? []), setting]);
    }
  }
  return [...members]
    .filter(([name, settings]) => settings.length > 1 && !NOT_FAMILIES.words.includes(name) && !NOT_FAMILIES.namespaces.includes(name.split('_')[0]!))
    .map(([name, settings]) => ({ name, words: name.split('_'), members: settings }));
})();

const startsWithWords = (words: readonly string[], family: Family) => family.words.every((word, index) => words[index] === word);

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

/** The nearest of `candidates` to `name`, the first of the list among equals. */
function nearest(name: string, candidates: readonly string[]): readonly [string, number] {
  return candidates.map((known) => [known, editDistance(name, known)] as const).reduce((best, next) => (next[1] < best[1] ? next : best));
}

/** The setting a variable not among them most likely meant, or undefined when it resembles none. */
function settingMeant(name: string, value: string | undefined): string | undefined {
  const upper = name.toUpperCase();
  const words = wordsOf(upper);
  const families = FAMILIES.filter((family) => startsWithWords(words, family));
  // A variable starting with a family's words is meant for that family, unless Kubernetes set it for a Service.
  if (families.length > 0 && !isKubernetesService(upper, value)) {
    // A family's own name, give or take an edit (RATE_LIMIT=20, RATE_LIMT=20, UPSTREAM=…), means its main setting.
    const folded = words.join('_');
    const named = FAMILIES.map((family) => [family, editDistance(folded, family.name)] as const).filter(([, distance]) => distance <= 1)
      .reduce<readonly [Family, number] | undefined>((best, next) => (best === undefined || next[1] < best[1] || (next[1] === best[1] && next[0].words.length > best[0].words.length) ? next : best), undefined);
    if (named) return named[0].members[0];
    // Else the nearest setting of the widest family it starts with.
    return nearest(upper, families.reduce((widest, family) => (family.words.length < widest.words.length ? family : widest)).members)[0];
  }
  const [setting, distance] = nearest(upper, KNOWN);
  return closeEnough(name, distance) ? setting : undefined;
}

/** A warning per variable of `env` that resembles a setting without being one, in name order. */
export function settingTypos(env: Record<string, string | undefined>): string[] {
  const warnings: string[] = [];
  for (const name of Object.keys(env).sort()) {
    if (KNOWN.includes(name)) continue;
    const setting = settingMeant(name, env[name]);
    if (setting !== undefined) warnings.push(`Warning: ${name} is not a setting of this gateway and is ignored: did you mean ${setting}? (npm start -- --help lists the settings)`);
  }
  return warnings;
}
