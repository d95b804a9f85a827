/**
 * Live mode beyond the exceptions: each step, per Business Account, one LinX batch moves on (a
 * queued batch starts, an active one settles a few requests, and completes when none are left), one
 * acceptance arrives on one of its Financial Accounts, and now and then a document's scan moves on
 * (NEW → UPLOADED → SCANNED, one in five MALICIOUS). Like the exceptions' steps (live.ts) they come
 * from a seeded PRNG of their own and their timestamps from the step number, so the exceptions'
 * sequence is the same with or without them, and the same seed gives the same changes.
 */
import { createRandom } from './random.ts';
import type { Random } from './random.ts';
import { liveCreatedAt, liveUpdatedAt } from './live.ts';
import type { LiveChange } from './live.ts';
import type { SeededAccount } from './seed.ts';
import type { AcceptanceRecord, DocumentRecord, LinxBatchRecord } from './records.ts';

/** Share of steps in which one document's scan moves on: the seeded NEW and UPLOADED documents last a while. */
const DOCUMENT_CHANGE_SHARE = 0.3;

/** Batches whose requests are still moving. */
const MOVING = new Set(['NEW', 'QUEUED', 'ACTIVE']);

export interface LiveRecordsState {
  linxBatches: readonly LinxBatchRecord[];
  acceptances: readonly AcceptanceRecord[];
  /** The account's documents, by id. */
  documents: readonly DocumentRecord[];
}

export interface LiveRecordsStep {
  linxBatches?: LinxBatchRecord[];
  acceptances?: AcceptanceRecord[];
  document?: DocumentRecord;
  changes: LiveChange[];
}

export class LiveRecords {
  readonly #seeded: SeededAccount;
  readonly #seed: string;
  #random: Random;

  constructor(seeded: SeededAccount, seed: string) {
    this.#seeded = seeded;
    this.#seed = seed;
    this.#random = this.#stream();
  }

  #stream(): Random {
    return createRandom(`${this.#seeded.profile.seed}/live-records/${this.#seed}`);
  }

  reset(): void {
    this.#random = this.#stream();
  }

  /** Step `step` over the account's current records: the replaced lists and document, and what changed. */
  advance(step: number, state: LiveRecordsState): LiveRecordsStep {
    const random = this.#random;
    const businessAccountId = this.#seeded.profile.businessAccountId;
    const updatedAt = liveUpdatedAt(step);
    const result: LiveRecordsStep = { changes: [] };

    const moving = state.linxBatches.filter((batch) => MOVING.has(batch.status));
    if (moving.length > 0) {
      const batch = random.pick(moving);
      const next = moveBatch(batch, random, updatedAt);
      result.linxBatches = state.linxBatches.map((record) => (record.id === batch.id ? next : record));
      result.changes.push({ kind: 'linx', businessAccountId, id: batch.id, step, status: next.status, activeRequestsCount: next.activeRequestsCount });
    }

    const financialAccountId = this.#seeded.financialAccounts[step % this.#seeded.financialAccounts.length];
    const template = state.acceptances.find((record) => record.scopes.FINANCIAL_ACCOUNT_ID === financialAccountId);
    if (financialAccountId !== undefined && template !== undefined) {
      const createdAt = liveCreatedAt(step);
      const arrived: AcceptanceRecord = {
        ...template,
        id: random.uuid(),
        accepted: random.chance(0.8),
        respondedAt: createdAt,
        createdAt,
      };
      result.acceptances = [...state.acceptances, arrived];
      result.changes.push({ kind: 'acceptance', businessAccountId, id: arrived.id, step, financialAccountId });
    }

    if (random.chance(DOCUMENT_CHANGE_SHARE)) {
      const waiting = state.documents.filter((document) => document.status === 'NEW' || document.status === 'UPLOADED');
      if (waiting.length > 0) {
        const document = random.pick(waiting);
        const to = document.status === 'NEW' ? 'UPLOADED' : random.chance(0.2) ? 'MALICIOUS' : 'SCANNED';
        result.document = {
          ...document,
          status: to,
          ...(to === 'UPLOADED' ? { version: String(Number(document.version) + 1) } : {}),
          updatedAt,
        };
        result.changes.push({ kind: 'document', businessAccountId, id: document.id, step, from: document.status, to });
      }
    }
    return result;
  }
}

/** A batch one step on: NEW → QUEUED → ACTIVE, then a few active requests settle; COMPLETED when none are left. */
function moveBatch(batch: LinxBatchRecord, random: Random, updatedAt: string): LinxBatchRecord {
  if (batch.status === 'NEW') {
    const active = random.int(5, 60);
    return { ...batch, status: 'QUEUED', activeRequestsCount: active, totalRequestsCount: batch.totalRequestsCount + active, updatedAt };
  }
  if (batch.status === 'QUEUED') return { ...batch, status: 'ACTIVE', updatedAt };
  const settled = Math.min(batch.activeRequestsCount, random.int(1, 10));
  const declined = random.chance(0.1) ? Math.min(1, settled) : 0;
  const active = batch.activeRequestsCount - settled;
  return {
    ...batch,
    status: active === 0 ? 'COMPLETED' : 'ACTIVE',
    activeRequestsCount: active,
    completedRequestsCount: batch.completedRequestsCount + settled - declined,
    declinedRequestsCount: batch.declinedRequestsCount + declined,
    updatedAt,
  };
}
