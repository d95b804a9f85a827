import { documentTypes } from '../documents/resolvers.ts';
import type { ExampleValues } from './examples.ts';

/**
 * The example ids the embedded sandbox hands over at start-up (its
 * `examples()`), as the gateway reads them: the sandbox shares no code with
 * the gateway, so this is the gateway's own statement of what it uses.
 */
export interface SandboxExampleIds {
  financialAccountId: string;
  linxTemplate: { templateId: string; templateVersionId: string };
  documentsByStatus: readonly { status: string; id: string }[];
  /** A platform document record: its details become a valid update input. */
  documentToUpdate: { id: string; documentType: string } & Partial<Record<(typeof UPDATABLE_FIELDS)[number], unknown>>;
}

const UPDATABLE_FIELDS = ['name', 'description', 'number', 'issuingDate', 'issuingCountryCode', 'issuingStateCode', 'expiryDate', 'metadata'] as const;

/** The document's own details as an update input: valid by construction, so the example mutation succeeds. */
function updateInputOf(document: SandboxExampleIds['documentToUpdate']): Record<string, unknown> {
  const input: Record<string, unknown> = { id: document.id, documentType: documentTypes.fromPlatform(document.documentType, null) };
  for (const field of UPDATABLE_FIELDS) {
    if (document[field] !== undefined) input[field] = document[field];
  }
  return input;
}

/**
 * The playground's example values over the embedded sandbox: an account with
 * acceptances, a template version with batches, a scanned document (so its
 * content URLs show) and a passport to update.
 */
export function sandboxExampleValues(ids: SandboxExampleIds): ExampleValues {
  const scanned = ids.documentsByStatus.find((d) => d.status === 'SCANNED');
  if (!scanned) throw new Error('The sandbox examples hold no SCANNED document');
  return {
    financialAccountId: ids.financialAccountId,
    templateId: ids.linxTemplate.templateId,
    templateVersionId: ids.linxTemplate.templateVersionId,
    documentId: scanned.id,
    updateInput: updateInputOf(ids.documentToUpdate),
  };
}
