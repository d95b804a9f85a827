import { documentTypes } from '../documents/resolvers.ts';
import type { DocumentRecord } from '../../sandbox/data/records.ts';
import type { SandboxStore } from '../../sandbox/data/store.ts';
import type { ExampleValues } from './examples.ts';

const UPDATABLE_FIELDS = ['name', 'description', 'number', 'issuingDate', 'issuingCountryCode', 'issuingStateCode', 'expiryDate', 'metadata'] as const;

/** The document's own details as an update input: valid by construction, so the example mutation succeeds. */
function updateInputOf(document: DocumentRecord): Record<string, unknown> {
  const input: Record<string, unknown> = { id: document.id, documentType: documentTypes.fromPlatform(document.documentType, null) };
  for (const field of UPDATABLE_FIELDS) {
    if (document[field] !== undefined) input[field] = document[field];
  }
  return input;
}

/**
 * Example values taken from the sandbox's seeded records of one Business
 * Account (the one the demo token belongs to): an account with acceptances,
 * a template version with batches, a scanned document (so its content URLs
 * show) and a passport to update.
 */
export function sandboxExampleValues(store: SandboxStore, businessAccountId: string): ExampleValues {
  const financialAccountId = store.financialAccounts(businessAccountId)[0];
  const template = store.linxTemplates(businessAccountId)[0];
  const version = template?.versions[0];
  const documents = store.documents(businessAccountId);
  const scanned = documents.find((d) => d.status === 'SCANNED');
  const passport = documents.find((d) => d.documentType === 'passport') ?? documents[0];
  if (!financialAccountId || !template || !version || !scanned || !passport) {
    throw new Error(`The sandbox has no example data for Business Account ${businessAccountId}`);
  }
  return {
    financialAccountId,
    templateId: template.templateId,
    templateVersionId: version.templateVersionId,
    documentId: scanned.id,
    updateInput: updateInputOf(passport),
  };
}
