/**
 * Live mode: the exceptions of each Business Account change as a real work queue does. Every step
 * one exception arrives (newest, so at the head of the default createdAt DESC order) and, most
 * steps, one existing exception moves to its next status. The steps come from a seeded PRNG and
 * their timestamps from the step number, never from the clock: the same seed gives the same
 * sequence of changes on every run. Creations are stamped on one timeline (after every seeded
 * createdAt), updates on another that starts after every seeded updatedAt
 * (`liveUpdatedAt`), so a list sorted by updatedAt DESC shows the latest live change first.
 */
import { createRandom } from './random.ts';
import type { Random } from './random.ts';
import { BASE_DATE_MS } from './seed.ts';
import type { SeededAccount } from './seed.ts';
import { formatTimestamp } from './time.ts';
import type { ExceptionRecord, ExceptionStatus } from './records.ts';

/** Arrivals are this far apart in createdAt, after the newest seeded record. */
const STEP_SPACING_MS = 60_000;

/** Seeded records were last updated at most four days after BASE_DATE_MS; live updates come after. */
const LIVE_UPDATES_FROM_MS = BASE_DATE_MS + 7 * 24 * 3600_000;

/** createdAt of what step `step` creates. */
export function liveCreatedAt(step: number): string {
  return formatTimestamp(BASE_DATE_MS + step * STEP_SPACING_MS);
}

/** updatedAt of what step `step` changes: later than every seeded updatedAt, and than every earlier step's. */
export function liveUpdatedAt(step: number): string {
  return formatTimestamp(LIVE_UPDATES_FROM_MS + step * STEP_SPACING_MS);
}

/** Share of steps in which an existing exception also changes status. */
const STATUS_CHANGE_SHARE = 0.7;

/** Where an operator moves an exception next. */
const NEXT_STATUS: Readonly<Record<ExceptionStatus, ExceptionStatus>> = {
  NEW: 'IN_PROGRESS',
  IN_PROGRESS: 'RESOLVED',
  RESOLVED: 'REOPENED',
  REOPENED: 'IN_PROGRESS',
};

export type LiveChange =
  | { readonly kind: 'arrived'; readonly businessAccountId: string; readonly id: string; readonly step: number }
  | { readonly kind: 'status'; readonly businessAccountId: string; readonly id: string; readonly step: number; readonly from: ExceptionStatus; readonly to: ExceptionStatus }
  /** A LinX batch moved on: its status, or requests from active to an outcome. */
  | { readonly kind: 'linx'; readonly businessAccountId: string; readonly id: string; readonly step: number; readonly status: string; readonly activeRequestsCount: number }
  /** A document's scan moved on: NEW → UPLOADED, UPLOADED → SCANNED or MALICIOUS. */
  | { readonly kind: 'document'; readonly businessAccountId: string; readonly id: string; readonly step: number; readonly from: string; readonly to: string }
  /** A new acceptance on one of the account's Financial Accounts. */
  | { readonly kind: 'acceptance'; readonly businessAccountId: string; readonly id: string; readonly step: number; readonly financialAccountId: string };

export class LiveExceptions {
  readonly #seeded: SeededAccount;
  readonly #seed: string;
  #random: Random;
  #step = 0;

  constructor(seeded: SeededAccount, seed: string) {
    this.#seeded = seeded;
    this.#seed = seed;
    this.#random = this.#stream();
  }

  #stream(): Random {
    return createRandom(`${this.#seeded.profile.seed}/live/${this.#seed}`);
  }

  /** Back to before the first step. */
  reset(): void {
    this.#random = this.#stream();
    this.#step = 0;
  }

  /** One step over `records` (the account's current exceptions): the records after it, and what changed. */
  advance(records: readonly ExceptionRecord[], arrivals = true): { records: ExceptionRecord[]; changes: LiveChange[] } {
    const random = this.#random;
    const step = ++this.#step;
    const businessAccountId = this.#seeded.profile.businessAccountId;
    const at = liveCreatedAt(step);
    const updatedAt = liveUpdatedAt(step);
    const next = [...records];
    const changes: LiveChange[] = [];
    if (next.length > 0 && random.chance(STATUS_CHANGE_SHARE)) {
      const index = random.int(0, next.length - 1);
      const record = next[index] as ExceptionRecord;
      const to = NEXT_STATUS[record.status];
      const assignee = record.assignedTo ?? random.pick(this.#seeded.assignees);
      next[index] = { ...record, status: to, ...(to === 'IN_PROGRESS' ? { assignedTo: assignee } : {}), updatedAt };
      changes.push({ kind: 'status', businessAccountId, id: record.id, step, from: record.status, to });
    }
    if (!arrivals) return { records: next, changes };
    const template = random.pick(this.#seeded.exceptions);
    const arrived: ExceptionRecord = {
      id: random.uuid(),
      entityId: template.entityId,
      businessAccountId,
      category: template.category,
      type: template.type,
      notes: template.notes,
      status: 'NEW',
      description: template.description,
      createdBy: template.createdBy,
      createdAt: at,
      updatedBy: template.createdBy,
      updatedAt,
    };
    next.push(arrived);
    changes.push({ kind: 'arrived', businessAccountId, id: arrived.id, step });
    return { records: next, changes };
  }
}
