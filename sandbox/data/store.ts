import { Collection } from './collection.ts';
import { LiveExceptions } from './live.ts';
import { LiveRecords } from './live-records.ts';
import type { LiveChange } from './live.ts';
import { ACCOUNT_PROFILES, seedAccount } from './seed.ts';
import type { AccountProfile, LegalUrlFactory, SeededAccount } from './seed.ts';
import type { AcceptanceRecord, Assignee, DocumentRecord, ExceptionRecord, LinxBatchRecord, LinxTemplate } from './records.ts';

/**
 * Read access to the sandbox's records, per Business Account, in the
 * platform's JSON shape. Lists are in the platform's default order
 * (createdAt DESC, then id ASC).
 */
export interface SandboxStore {
  businessAccountIds(): string[];
  exceptions(businessAccountId: string): readonly ExceptionRecord[];
  acceptances(businessAccountId: string): readonly AcceptanceRecord[];
  /** Ids of the Financial Accounts that have acceptances. */
  financialAccounts(businessAccountId: string): readonly string[];
  /** The users exceptions get assigned to. */
  assignees(businessAccountId: string): readonly Assignee[];
  linxBatches(businessAccountId: string): readonly LinxBatchRecord[];
  linxTemplates(businessAccountId: string): readonly LinxTemplate[];
  /** The batch's internal display name, which LinX search matches on. */
  linxBatchName(batchId: string): string | undefined;
  /** Stored documents; content URLs are minted per response and are not part of these records. */
  documents(businessAccountId: string): readonly DocumentRecord[];
  document(documentId: string): DocumentRecord | undefined;
  /** Back to the seeded records: documents lose their updates and uploads, live changes are undone. */
  reset(): void;
  /**
   * Live mode: one step of changes to every account's records (an exception arrives and often one
   * changes status; a LinX batch moves on; an acceptance arrives; now and then a document's scan
   * moves on), the same sequence on every run. Returns what changed.
   */
  liveStep(): LiveChange[];
  /** Every live change since the start or the last reset, oldest first (the latest 10000). */
  liveChanges(): readonly LiveChange[];
}

/** One Business Account's data as the routes use it. */
export interface AccountData {
  readonly profile: AccountProfile;
  readonly seeded: SeededAccount;
  /** These three are replaced, never mutated, by each live step. */
  exceptions: Collection<ExceptionRecord>;
  acceptances: Collection<AcceptanceRecord>;
  linxBatches: Collection<LinxBatchRecord>;
  /** Lower-cased batch and template display names per batch id, for search. */
  readonly linxSearchText: ReadonlyMap<string, readonly [string, string]>;
}

/** Live mode stops adding exceptions (and acceptances) to an account past this many arrivals (other changes go on). */
const MAX_LIVE_ARRIVALS = 5_000;
const MAX_LIVE_CHANGES_KEPT = 10_000;

export class PlatformStore implements SandboxStore {
  readonly #profiles: readonly AccountProfile[];
  readonly #accounts = new Map<string, AccountData>();
  readonly #byToken = new Map<string, AccountData>();
  readonly #batchNames = new Map<string, string>();
  /** The documents as seeded; documents are the only records the API changes. */
  readonly #seededDocuments: readonly DocumentRecord[];
  #documents = new Map<string, DocumentRecord>();
  /** Bytes of real uploads; seeded documents have none until one happens. */
  #content = new Map<string, Buffer>();
  readonly #resetListeners: (() => void)[] = [];
  readonly #live = new Map<AccountData, LiveExceptions>();
  readonly #liveRecords = new Map<AccountData, LiveRecords>();
  #liveStep = 0;
  #liveChanges: LiveChange[] = [];

  constructor(legalUrl: LegalUrlFactory, profiles: readonly AccountProfile[] = ACCOUNT_PROFILES, liveSeed = 'live') {
    this.#profiles = profiles;
    const documents: DocumentRecord[] = [];
    for (const profile of profiles) {
      const seeded = seedAccount(profile, legalUrl);
      const linxSearchText = new Map<string, readonly [string, string]>();
      for (const batch of seeded.linxBatches) {
        const name = seeded.linxBatchNames.get(batch.id) ?? '';
        this.#batchNames.set(batch.id, name);
        linxSearchText.set(batch.id, [name.toLowerCase(), batch.templateDisplayName.toLowerCase()]);
      }
      const account: AccountData = {
        profile,
        seeded,
        exceptions: new Collection(seeded.exceptions),
        acceptances: new Collection(seeded.acceptances),
        linxBatches: new Collection(seeded.linxBatches),
        linxSearchText,
      };
      this.#accounts.set(profile.businessAccountId, account);
      this.#live.set(account, new LiveExceptions(seeded, liveSeed));
      this.#liveRecords.set(account, new LiveRecords(seeded, liveSeed));
      for (const token of [profile.token, ...(profile.renewedTokens ?? [])]) this.#byToken.set(token, account);
      documents.push(...seeded.documents);
    }
    this.#seededDocuments = documents;
    this.reset();
  }

  /**
   * Back to the seeded state. Only documents (details, versions, uploads)
   * ever change, and the seed is deterministic, so restoring them is the
   * same as seeding again.
   */
  reset(): void {
    for (const [account, live] of this.#live) {
      live.reset();
      account.exceptions = new Collection(account.seeded.exceptions);
      account.acceptances = new Collection(account.seeded.acceptances);
      account.linxBatches = new Collection(account.seeded.linxBatches);
    }
    for (const live of this.#liveRecords.values()) live.reset();
    this.#liveStep = 0;
    this.#liveChanges = [];
    this.#documents = new Map(this.#seededDocuments.map((document) => [document.id, document]));
    this.#content = new Map();
    for (const listener of this.#resetListeners) listener();
  }

  liveStep(): LiveChange[] {
    const changes: LiveChange[] = [];
    const number = ++this.#liveStep;
    for (const [account, live] of this.#live) {
      const step = live.advance(account.exceptions.records, account.exceptions.records.length < account.seeded.exceptions.length + MAX_LIVE_ARRIVALS);
      account.exceptions = new Collection(step.records);
      changes.push(...step.changes);
    }
    for (const [account, live] of this.#liveRecords) {
      const acceptances = account.acceptances.records;
      const step = live.advance(number, {
        linxBatches: account.linxBatches.records,
        // Past MAX_LIVE_ARRIVALS new acceptances, batches and documents go on moving, acceptances stop arriving.
        acceptances: acceptances.length < account.seeded.acceptances.length + MAX_LIVE_ARRIVALS ? acceptances : [],
        documents: this.documents(account.profile.businessAccountId),
      });
      if (step.linxBatches) account.linxBatches = new Collection(step.linxBatches);
      if (step.acceptances) account.acceptances = new Collection(step.acceptances);
      if (step.document) this.saveDocument(step.document);
      changes.push(...step.changes);
    }
    this.#liveChanges.push(...changes);
    if (this.#liveChanges.length > MAX_LIVE_CHANGES_KEPT) this.#liveChanges.splice(0, this.#liveChanges.length - MAX_LIVE_CHANGES_KEPT);
    return changes;
  }

  liveChanges(): readonly LiveChange[] {
    return this.#liveChanges;
  }

  onReset(listener: () => void): void {
    this.#resetListeners.push(listener);
  }

  profiles(): readonly AccountProfile[] {
    return this.#profiles;
  }

  accountForToken(token: string): AccountData | undefined {
    return this.#byToken.get(token);
  }

  businessAccountIds(): string[] {
    return [...this.#accounts.keys()];
  }

  exceptions(businessAccountId: string): readonly ExceptionRecord[] {
    return this.#accounts.get(businessAccountId)?.exceptions.records ?? [];
  }

  acceptances(businessAccountId: string): readonly AcceptanceRecord[] {
    return this.#accounts.get(businessAccountId)?.acceptances.records ?? [];
  }

  financialAccounts(businessAccountId: string): readonly string[] {
    return this.#accounts.get(businessAccountId)?.seeded.financialAccounts ?? [];
  }

  assignees(businessAccountId: string): readonly Assignee[] {
    return this.#accounts.get(businessAccountId)?.seeded.assignees ?? [];
  }

  linxBatches(businessAccountId: string): readonly LinxBatchRecord[] {
    return this.#accounts.get(businessAccountId)?.linxBatches.records ?? [];
  }

  linxTemplates(businessAccountId: string): readonly LinxTemplate[] {
    return this.#accounts.get(businessAccountId)?.seeded.templates ?? [];
  }

  linxBatchName(batchId: string): string | undefined {
    return this.#batchNames.get(batchId);
  }

  documents(businessAccountId: string): readonly DocumentRecord[] {
    return [...this.#documents.values()].filter((document) => document.businessAccountId === businessAccountId);
  }

  document(documentId: string): DocumentRecord | undefined {
    return this.#documents.get(documentId);
  }

  /** Replaces a document record (records are never mutated in place). */
  saveDocument(document: DocumentRecord): void {
    this.#documents.set(document.id, document);
  }

  content(documentId: string): Buffer | undefined {
    return this.#content.get(documentId);
  }

  saveContent(documentId: string, bytes: Buffer): void {
    this.#content.set(documentId, bytes);
  }
}
