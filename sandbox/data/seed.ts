/**
 * The seeded data of the sandbox: per Business Account, a fixed set of
 * exceptions, acceptances, LinX batches and documents. Everything comes from
 * a seeded PRNG and a fixed base date, never from the clock, so every start
 * (and every reset) produces the same records.
 */
import { createRandom } from './random.ts';
import type { Random } from './random.ts';
import { formatDate, formatTimestamp } from './time.ts';
import { DOCUMENT_APPLICABILITY, DOCUMENT_EXTENSIONS, DOCUMENT_STATUSES, DOCUMENT_TYPES, EXCEPTION_STATUSES, LINX_STATUSES } from './records.ts';
import type {
  AcceptanceRecord, Actor, Assignee, DocumentRecord, DocumentType, ExceptionCategory, ExceptionRecord, ExceptionStatus, ExceptionType,
  HolderType, LinxBatchRecord, LinxStatus, LinxTemplate, Note,
} from './records.ts';

/** Newest seeded record is created just before this instant; the data goes back from it. */
export const BASE_DATE_MS = Date.UTC(2026, 9, 1);

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

export interface DemoToken { token: string; businessAccountId: string; businessAccountName: string }

export interface AccountProfile extends DemoToken {
  /**
   * Other tokens of the same Business Account, as a client holds after renewing its access token:
   * the platform answers them with the same account's records.
   */
  readonly renewedTokens?: readonly string[];
  readonly seed: string;
  readonly emailDomain: string;
  readonly exceptionCount: number;
  /** One Financial Account per entry, with that many acceptances. */
  readonly acceptancesPerFinancialAccount: readonly number[];
  /** Two templates, each with the display names of versions 1 and 2 and the batch count of each version. */
  readonly templates: readonly { readonly names: readonly [string, string]; readonly batchCounts: readonly [number, number] }[];
  readonly people: readonly (readonly [string, string])[];
  readonly cohorts: readonly string[];
}

export const ACCOUNT_PROFILES: readonly AccountProfile[] = [
  {
    token: 'demo-token-acme',
    renewedTokens: ['demo-token-acme-renewed'],
    businessAccountId: '3f6c1e2a-8b4d-4c7e-9f10-2a5b6c7d8e01',
    businessAccountName: 'Acme Payroll Inc',
    seed: 'acme-payroll',
    emailDomain: 'acmepayroll.example',
    exceptionCount: 300,
    acceptancesPerFinancialAccount: [64, 71, 78],
    templates: [
      { names: ['Contractor Onboarding', 'Contractor Onboarding 2026'], batchCounts: [24, 21] },
      { names: ['Payroll Bank Verification', 'Payroll Bank Verification Express'], batchCounts: [26, 22] },
    ],
    people: [['Maya', 'Okafor'], ['Liam', 'Brennan'], ['Sofia', 'Marquez'], ['Noah', 'Lindqvist'], ['Priya', 'Raman'], ['Ethan', 'Cole']],
    cohorts: ['contractors', 'new hires', 'seasonal staff', 'drivers', 'warehouse team', 'interns'],
  },
  {
    token: 'demo-token-globex',
    businessAccountId: '9a2d4b6f-1c3e-4a5b-8d7c-6e5f4a3b2c02',
    businessAccountName: 'Globex Lending LLC',
    seed: 'globex-lending',
    emailDomain: 'globexlending.example',
    exceptionCount: 260,
    acceptancesPerFinancialAccount: [62, 66, 75, 61],
    templates: [
      { names: ['Loan Application Intake', 'Loan Application Intake Plus'], batchCounts: [20, 23] },
      { names: ['Borrower KYC Refresh', 'Borrower KYC Refresh Annual'], batchCounts: [22, 25] },
    ],
    people: [['Hannah', 'Weiss'], ['Omar', 'Haddad'], ['Grace', 'Nakamura'], ['Lucas', 'Ferreira'], ['Zoe', 'Adeyemi']],
    cohorts: ['borrowers', 'applicants', 'co-signers', 'small business', 'refinance', 'renewals'],
  },
];

export interface SeededAccount {
  readonly profile: AccountProfile;
  readonly assignees: readonly Assignee[];
  readonly financialAccounts: readonly string[];
  readonly exceptions: readonly ExceptionRecord[];
  readonly acceptances: readonly AcceptanceRecord[];
  readonly templates: readonly LinxTemplate[];
  readonly linxBatches: readonly LinxBatchRecord[];
  /** Internal display name of each batch (not part of the record; used by search). */
  readonly linxBatchNames: ReadonlyMap<string, string>;
  readonly documents: readonly DocumentRecord[];
  /** The service account that the account's API token acts as (updatedBy of API writes). */
  readonly apiClient: Actor;
}

/** Builds the URL of an acceptance's legal document on the content host. */
export type LegalUrlFactory = (documentId: string, documentVersion: string) => string;

/** Strictly decreasing instants before BASE_DATE_MS, so createdAt values are distinct. */
function timeline(random: Random, count: number, minGap: number, maxGap: number): number[] {
  const out: number[] = [];
  let t = BASE_DATE_MS;
  for (let i = 0; i < count; i++) {
    t -= random.int(minGap, maxGap);
    out.push(t);
  }
  return out;
}

interface Actors {
  /** Internal calls, with a blank or an absent id. */
  system(): Actor;
  human(): Actor;
  any(): Actor;
}

interface ActorPools { readonly employees: readonly Actor[]; readonly operators: readonly Actor[]; readonly serviceAccounts: readonly Actor[] }

function actorPools(random: Random): ActorPools {
  return {
    employees: Array.from({ length: 4 }, () => ({ id: random.uuid(), type: 'employee' as const })),
    operators: Array.from({ length: 2 }, () => ({ id: random.uuid(), type: 'operator_employee' as const })),
    serviceAccounts: Array.from({ length: 2 }, () => ({ id: random.uuid(), type: 'service-account' as const })),
  };
}

const INTERNAL_ACTORS: readonly Actor[] = [{ id: '', type: 'internal' }, { type: 'internal' }];

function actorPicker(pools: ActorPools, random: Random): Actors {
  const system = (): Actor => (random.chance(0.5) ? random.pick(pools.serviceAccounts) : random.pick(INTERNAL_ACTORS));
  const human = (): Actor => (random.chance(0.8) ? random.pick(pools.employees) : random.pick(pools.operators));
  return { system, human, any: () => (random.chance(0.5) ? system() : human()) };
}

const EXCEPTION_KINDS: readonly (readonly [ExceptionCategory, ExceptionType])[] = [
  ['BANK_ACCOUNT_VERIFICATION', 'BANK_ACCOUNT_VERIFICATION_DECLINED'],
  ['BANK_ACCOUNT_VERIFICATION', 'BANK_ACCOUNT_VERIFICATION_NOC'],
  ['TRANSACTION', 'ACH_RETURN'],
  ['TRANSACTION', 'ACH_NOC'],
  ['TRANSACTION', 'RECONCILIATION'],
  ['CUSTOMER', 'EARNED_WAGE_ACCESS'],
  ['CUSTOMER', 'ACH_NOC'],
];

const ACH_RETURN_REASONS = ['R01 Insufficient funds', 'R02 Account closed', 'R03 No account/unable to locate account', 'R04 Invalid account number', 'R10 Customer advises not authorized'];
const NOC_CODES = ['C01 Incorrect account number', 'C02 Incorrect routing number', 'C03 Incorrect routing and account number', 'C05 Incorrect transaction code'];
const DECLINE_REASONS = ['micro-deposit amounts did not match', 'account holder name mismatch', 'account not found at the receiving bank', 'too many verification attempts'];

function money(random: Random, min: number, max: number): string {
  return (random.int(min * 100, max * 100) / 100).toFixed(2);
}

function exceptionDescription(random: Random, type: ExceptionType): string {
  switch (type) {
    case 'ACH_RETURN': return `ACH return ${random.pick(ACH_RETURN_REASONS)} on a payment of $${money(random, 25, 9000)}`;
    case 'ACH_NOC': return `Notification of Change ${random.pick(NOC_CODES)}`;
    case 'BANK_ACCOUNT_VERIFICATION_DECLINED': return `Bank account verification declined: ${random.pick(DECLINE_REASONS)}`;
    case 'BANK_ACCOUNT_VERIFICATION_NOC': return `Bank account verification returned ${random.pick(NOC_CODES)}`;
    case 'EARNED_WAGE_ACCESS': return `Earned wage access advance of $${money(random, 20, 500)} exceeds available earnings`;
    case 'RECONCILIATION': return `Transaction created during reconciliation for a ledger difference of $${money(random, 0.01, 2500)}`;
  }
}

const NOTE_TITLES = ['Customer contacted', 'Waiting on bank', 'Escalated to operations', 'Updated account details', 'Payment re-submitted', 'Reviewed'];
const NOTE_TEXTS = [
  'Called the account holder and asked for updated bank details.',
  'Opened a ticket with the receiving bank; expecting an answer within two business days.',
  'Amount confirmed against the payroll register.',
  'Customer confirmed the new routing number by email.',
  'Re-submitted the payment on the next ACH window.',
  'No further action needed after review.',
];

function pickStatus(random: Random): ExceptionStatus {
  const roll = random.next();
  return roll < 0.3 ? 'NEW' : roll < 0.55 ? 'IN_PROGRESS' : roll < 0.9 ? 'RESOLVED' : 'REOPENED';
}

/** Probability that an exception of this status has an assignee; IN_PROGRESS always has one. */
const ASSIGNED_SHARE: Readonly<Record<ExceptionStatus, number>> = { NEW: 0.3, IN_PROGRESS: 1, RESOLVED: 0.8, REOPENED: 0.5 };

function seedExceptions(profile: AccountProfile, random: Random, actors: Actors, assignees: readonly Assignee[], financialAccounts: readonly string[], customers: readonly string[]): ExceptionRecord[] {
  // The first kinds × statuses specs cover every combination; the rest are random.
  const specs: { kind: readonly [ExceptionCategory, ExceptionType]; status: ExceptionStatus }[] = [];
  for (const kind of EXCEPTION_KINDS) for (const status of EXCEPTION_STATUSES) specs.push({ kind, status });
  while (specs.length < profile.exceptionCount) specs.push({ kind: random.pick(EXCEPTION_KINDS), status: pickStatus(random) });
  random.shuffle(specs);
  const times = timeline(random, specs.length, 20 * MINUTE, 40 * HOUR);
  return specs.map(({ kind: [category, type], status }, i) => {
    const createdMs = times[i] as number;
    const updatedMs = status === 'NEW' && random.chance(0.5) ? createdMs : createdMs + random.int(MINUTE, 6 * DAY);
    const entityId = category === 'BANK_ACCOUNT_VERIFICATION' ? random.pick(financialAccounts) : category === 'CUSTOMER' ? random.pick(customers) : random.uuid();
    const noteCreatedMs = createdMs + random.int(MINUTE, 2 * DAY);
    const notes: Note = {
      id: random.uuid(),
      entityId: category === 'CUSTOMER' ? entityId : random.pick(financialAccounts),
      entityType: category === 'CUSTOMER' ? 'CUSTOMER' : 'FINANCIAL_ACCOUNT',
      title: random.pick(NOTE_TITLES),
      contentText: random.pick(NOTE_TEXTS),
      businessAccountId: profile.businessAccountId,
      createdBy: actors.human(),
      createdAt: formatTimestamp(noteCreatedMs),
      updatedBy: actors.human(),
      updatedAt: formatTimestamp(noteCreatedMs + random.int(0, DAY)),
    };
    const record: ExceptionRecord = {
      id: random.uuid(),
      entityId,
      businessAccountId: profile.businessAccountId,
      ...(random.chance(ASSIGNED_SHARE[status]) ? { assignedTo: random.pick(assignees) } : {}),
      category,
      type,
      notes,
      status,
      description: exceptionDescription(random, type),
      createdBy: actors.system(),
      createdAt: formatTimestamp(createdMs),
      updatedBy: status === 'NEW' ? actors.system() : actors.human(),
      updatedAt: formatTimestamp(updatedMs),
    };
    return record;
  });
}

const LEGAL_DOCUMENTS = ['terms-of-service', 'privacy-policy', 'e-sign-consent', 'cardholder-agreement', 'ach-authorization'];
const CHANNELS = ['web', 'mobile-app', 'api'];

function seedAcceptances(profile: AccountProfile, random: Random, actors: Actors, financialAccounts: readonly string[], customers: readonly string[], legalUrl: LegalUrlFactory): AcceptanceRecord[] {
  const accountOf: string[] = [];
  profile.acceptancesPerFinancialAccount.forEach((count, i) => {
    for (let n = 0; n < count; n++) accountOf.push(financialAccounts[i] as string);
  });
  random.shuffle(accountOf);
  const times = timeline(random, accountOf.length, 5 * MINUTE, 30 * HOUR);
  return accountOf.map((financialAccountId, i) => {
    const createdMs = times[i] as number;
    const documentId = random.pick(LEGAL_DOCUMENTS);
    const documentVersion = String(random.int(1, 3));
    return {
      id: random.uuid(),
      documentId,
      documentVersion,
      acceptorType: 'CUSTOMER',
      acceptorId: random.pick(customers),
      businessAccountId: profile.businessAccountId,
      scopes: { FINANCIAL_ACCOUNT_ID: financialAccountId },
      metadata: { channel: random.pick(CHANNELS), ipAddress: `198.51.100.${random.int(1, 254)}` },
      accepted: random.chance(0.8),
      respondedAt: formatTimestamp(createdMs - random.int(1_000, 2 * MINUTE)),
      createdBy: actors.system(),
      createdAt: formatTimestamp(createdMs),
      downloadUrl: legalUrl(documentId, documentVersion),
    };
  });
}

const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];
const BATCH_KINDS = ['wave', 'import', 'refresh', 'rollout', 'backfill'];

type Counters = Pick<LinxBatchRecord, 'activeRequestsCount' | 'cancelledRequestsCount' | 'completedRequestsCount' | 'declinedRequestsCount' | 'expiredRequestsCount' | 'failedRequestsCount' | 'rejectedRequestsCount' | 'totalRequestsCount'>;

/** Outcome counters that fit the batch status; the total is always their sum. */
function countersFor(status: LinxStatus, random: Random): Counters {
  let active = 0, cancelled = 0, completed = 0, declined = 0, expired = 0, failed = 0, rejected = 0;
  switch (status) {
    case 'NEW':
    case 'INVALID':
      break;
    case 'QUEUED':
      active = random.int(5, 400);
      break;
    case 'ACTIVE':
      active = random.int(1, 200); completed = random.int(0, 300); declined = random.int(0, 20); expired = random.int(0, 10); rejected = random.int(0, 15);
      break;
    case 'COMPLETED':
      completed = random.int(10, 500); declined = random.int(0, 25); expired = random.int(0, 12); rejected = random.int(0, 20); failed = random.int(0, 5);
      break;
    case 'CANCELLING':
      active = random.int(0, 40); cancelled = random.int(1, 150); completed = random.int(0, 100);
      break;
    case 'FAILED':
      failed = random.int(1, 300); completed = random.int(0, 50);
      break;
  }
  return {
    activeRequestsCount: active,
    cancelledRequestsCount: cancelled,
    completedRequestsCount: completed,
    declinedRequestsCount: declined,
    expiredRequestsCount: expired,
    failedRequestsCount: failed,
    rejectedRequestsCount: rejected,
    totalRequestsCount: active + cancelled + completed + declined + expired + failed + rejected,
  };
}

function seedLinx(profile: AccountProfile, random: Random, actors: Actors): { templates: LinxTemplate[]; batches: LinxBatchRecord[]; names: Map<string, string> } {
  const templates: LinxTemplate[] = profile.templates.map((template) => ({
    templateId: random.uuid(),
    versions: template.names.map((displayName, v) => ({ templateVersionId: random.uuid(), templateVersion: v + 1, displayName })),
  }));
  // Every (template, version) gets each status once, then random ones.
  const specs: { template: LinxTemplate; version: number; status: LinxStatus }[] = [];
  profile.templates.forEach((template, t) => {
    template.batchCounts.forEach((count, v) => {
      for (let n = 0; n < count; n++) {
        const status = n < LINX_STATUSES.length ? LINX_STATUSES[n] as LinxStatus : random.pick(LINX_STATUSES);
        specs.push({ template: templates[t] as LinxTemplate, version: v, status });
      }
    });
  });
  random.shuffle(specs);
  const times = timeline(random, specs.length, HOUR, 3 * DAY);
  const names = new Map<string, string>();
  const batches = specs.map(({ template, version, status }, i) => {
    const createdMs = times[i] as number;
    const templateVersion = template.versions[version] as LinxTemplate['versions'][number];
    const id = random.uuid();
    names.set(id, `${random.pick(MONTHS)} ${random.pick(profile.cohorts)} ${random.pick(BATCH_KINDS)} ${i + 1}`);
    const createdBy = actors.any();
    const record: LinxBatchRecord = {
      id,
      status,
      templateId: template.templateId,
      templateVersionId: templateVersion.templateVersionId,
      templateVersion: templateVersion.templateVersion,
      templateDisplayName: templateVersion.displayName,
      ...countersFor(status, random),
      createdBy,
      createdAt: formatTimestamp(createdMs),
      updatedBy: status === 'NEW' ? createdBy : actors.any(),
      updatedAt: formatTimestamp(status === 'NEW' ? createdMs : createdMs + random.int(MINUTE, 4 * DAY)),
    };
    return record;
  });
  return { templates, batches, names };
}

const DOCUMENT_NAMES: Readonly<Record<DocumentType, readonly string[]>> = {
  'driving-license': ['Driver license (front)', 'Driver license', 'State driver license'],
  passport: ['Passport', 'Passport photo page'],
  formation: ['Certificate of formation', 'Articles of incorporation'],
  tax: ['IRS EIN confirmation letter', 'W-9 form'],
  ownership: ['Ownership structure chart', 'Shareholder register'],
  other: ['Proof of address', 'Utility bill', 'Bank statement', 'Power of attorney'],
};
const DOCUMENT_DESCRIPTIONS: Readonly<Record<DocumentType, readonly string[]>> = {
  'driving-license': ['Front side, scanned at onboarding'],
  passport: ['Photo page only'],
  formation: ['Filed with the Secretary of State', 'Certified copy'],
  tax: ['Confirms the employer identification number', 'Signed and dated'],
  ownership: ['Lists every owner with 25% or more', 'Approved by the board'],
  other: ['Issued within the last 90 days', 'Supporting document requested by compliance', 'Covers the last statement period'],
};
const COUNTRIES = ['US', 'USA', 'CA', 'GB', 'MEX', 'DE'];
const STATES = ['CA', 'NY', 'TX', 'WA', 'FL', 'IL', 'ON'];
const PROVIDERS = ['VeriDoc', 'IdentiCheck'];

function seedDocuments(profile: AccountProfile, random: Random, actors: Actors, people: { individuals: readonly string[]; businesses: readonly string[]; beneficiaries: readonly string[] }): DocumentRecord[] {
  const specs: { documentType: DocumentType; holderType: HolderType; status: DocumentRecord['status'] }[] = [];
  for (const documentType of DOCUMENT_TYPES) {
    for (const holderType of DOCUMENT_APPLICABILITY[documentType]) {
      for (const status of DOCUMENT_STATUSES) specs.push({ documentType, holderType, status });
    }
  }
  for (let extra = 0; extra < 8; extra++) {
    const documentType = random.pick(DOCUMENT_TYPES);
    specs.push({ documentType, holderType: random.pick(DOCUMENT_APPLICABILITY[documentType]), status: random.chance(0.6) ? 'SCANNED' : random.pick(DOCUMENT_STATUSES) });
  }
  random.shuffle(specs);
  const times = timeline(random, specs.length, HOUR, 4 * DAY);
  return specs.map(({ documentType, holderType, status }, i) => {
    const createdMs = times[i] as number;
    const identity = documentType === 'driving-license' || documentType === 'passport';
    const holderId = holderType === 'BUSINESS_ACCOUNT' ? profile.businessAccountId
      : holderType === 'BENEFICIARY' ? random.pick(people.beneficiaries)
        : identity ? random.pick(people.individuals)
          : documentType === 'other' ? random.pick([...people.individuals, ...people.businesses]) : random.pick(people.businesses);
    const issuedMs = createdMs - random.int(30, 3000) * DAY;
    const hasIssuingDate = identity || random.chance(0.5);
    const processed = status === 'SCANNED' || status === 'MALICIOUS' || status === 'INCOMPLETE';
    const metadataSize = random.int(0, 3);
    const metadata: Record<string, string> = {};
    for (let m = 0; m < metadataSize; m++) metadata[['source', 'reviewer', 'ticket'][m] as string] = [random.pick(['onboarding-portal', 'api', 'back-office']), `reviewer-${random.int(1, 9)}`, `KYC-${random.int(1000, 9999)}`][m] as string;
    const createdBy = random.chance(0.5) ? actors.human() : actors.system();
    const record: DocumentRecord = {
      id: random.uuid(),
      ...(processed ? { providerExternalId: `doc_${random.hex(20)}`, provider: random.pick(PROVIDERS) } : {}),
      businessAccountId: profile.businessAccountId,
      holderId,
      holderType,
      documentType,
      name: random.pick(DOCUMENT_NAMES[documentType]),
      ...(!identity || random.chance(0.5) ? { description: random.pick(DOCUMENT_DESCRIPTIONS[documentType]) } : {}),
      ...(identity ? { number: documentType === 'passport' ? String(random.int(100_000_000, 999_999_999)) : `D${random.int(1_000_000, 9_999_999)}` } : {}),
      ...(hasIssuingDate ? { issuingDate: formatDate(issuedMs) } : {}),
      ...(identity || random.chance(0.3) ? { issuingCountryCode: documentType === 'driving-license' ? random.pick(['US', 'USA', 'CA']) : random.pick(COUNTRIES) } : {}),
      ...(documentType === 'driving-license' ? { issuingStateCode: random.pick(STATES) } : {}),
      extension: random.pick(DOCUMENT_EXTENSIONS),
      contentLength: random.int(2_048, 400_000),
      version: status === 'NEW' ? '1' : String(random.int(1, 4)),
      ...(identity ? { expiryDate: formatDate(issuedMs + random.int(5, 10) * 365 * DAY) } : {}),
      status,
      verificationStatus: status === 'SCANNED' && random.chance(0.6) ? 'VERIFIED' : 'UNVERIFIED',
      ...(metadataSize > 0 ? { metadata } : {}),
      createdBy,
      createdAt: formatTimestamp(createdMs),
      updatedBy: status === 'NEW' ? createdBy : actors.any(),
      updatedAt: formatTimestamp(status === 'NEW' ? createdMs : createdMs + random.int(MINUTE, 2 * DAY)),
    };
    return record;
  });
}

export function seedAccount(profile: AccountProfile, legalUrl: LegalUrlFactory): SeededAccount {
  // One stream per area, so that changing one area's generator leaves the others' data unchanged.
  const stream = (area: string): Random => createRandom(`${profile.seed}/${area}`);
  const base = stream('people');
  const assignees = profile.people.map(([firstName, lastName]) => ({
    id: base.uuid(), firstName, lastName, email: `${firstName.toLowerCase()}.${lastName.toLowerCase()}@${profile.emailDomain}`,
  }));
  const financialAccounts = profile.acceptancesPerFinancialAccount.map(() => base.uuid());
  const individuals = Array.from({ length: 40 }, () => base.uuid());
  const businesses = Array.from({ length: 12 }, () => base.uuid());
  const beneficiaries = Array.from({ length: 12 }, () => base.uuid());
  const pools = actorPools(stream('actors'));
  const area = (name: string): [Random, Actors] => {
    const random = stream(name);
    return [random, actorPicker(pools, random)];
  };

  const linx = seedLinx(profile, ...area('linx'));
  return {
    profile,
    assignees,
    financialAccounts,
    exceptions: seedExceptions(profile, ...area('exceptions'), assignees, financialAccounts, individuals),
    acceptances: seedAcceptances(profile, ...area('acceptances'), financialAccounts, individuals, legalUrl),
    templates: linx.templates,
    linxBatches: linx.batches,
    linxBatchNames: linx.names,
    documents: seedDocuments(profile, ...area('documents'), { individuals, businesses, beneficiaries }),
    apiClient: { id: stream('api-client').uuid(), type: 'service-account' },
  };
}
