import { DOCUMENT_STATUSES } from './records.ts';
import type { DocumentRecord, DocumentStatus } from './records.ts';
import type { SandboxStore } from './store.ts';

/**
 * Ready-to-use ids of one Business Account's seeded records, for a newcomer
 * to paste into a query (printed by `npm start`, listed by
 * `GET /__sandbox/fixtures`, pre-filled in the playground).
 */
export interface ExampleIds {
  /** A Financial Account with acceptances. */
  financialAccountId: string;
  /** A LinX template version with batches. */
  linxTemplate: { templateId: string; templateVersionId: string; templateVersion: number; displayName: string };
  /** The first document of each status the account has, in the contract's status order. */
  documentsByStatus: { status: DocumentStatus; id: string; documentType: string }[];
  /** A passport: every identity rule applies, so it is the update example. */
  documentToUpdate: DocumentRecord;
}

export function exampleIds(store: SandboxStore, businessAccountId: string): ExampleIds {
  const financialAccountId = store.financialAccounts(businessAccountId)[0];
  const template = store.linxTemplates(businessAccountId)[0];
  const version = template?.versions[0];
  const documents = store.documents(businessAccountId);
  const documentToUpdate = documents.find((d) => d.documentType === 'passport') ?? documents[0];
  if (!financialAccountId || !template || !version || !documentToUpdate) {
    throw new Error(`The sandbox has no example data for Business Account ${businessAccountId}`);
  }
  const documentsByStatus = DOCUMENT_STATUSES.flatMap((status) => {
    const document = documents.find((d) => d.status === status);
    return document ? [{ status, id: document.id, documentType: document.documentType }] : [];
  });
  return {
    financialAccountId,
    linxTemplate: { templateId: template.templateId, templateVersionId: version.templateVersionId, templateVersion: version.templateVersion, displayName: version.displayName },
    documentsByStatus,
    documentToUpdate,
  };
}
