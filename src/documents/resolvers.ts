import { ErrorCode } from '../errors.ts';
import type { DocumentHolderType, DocumentStatus, DocumentType, FileExtension, Resolvers, UpdateDocumentInput, VerificationStatus } from '../generated/graphql.ts';
import { PlatformError } from '../platform/errors.ts';
import { enumMapping, sameSpelling } from '../platform/values.ts';
import { updateDocument } from './api.ts';
import type { ContentUrlModel, ContentUrlRecord, DocumentModel, UpdateDocumentBody, UpdateDocumentPayloadModel, UserErrorModel } from './records.ts';
import { platformFieldMessage, validateUpdate } from './validation.ts';

export const documentTypes = enumMapping<DocumentType>({
  DRIVING_LICENSE: 'driving-license',
  PASSPORT: 'passport',
  FORMATION: 'formation',
  TAX: 'tax',
  OWNERSHIP: 'ownership',
  OTHER: 'other',
});
const holderTypes = sameSpelling<DocumentHolderType>(['BENEFICIARY', 'BUSINESS_ACCOUNT', 'CUSTOMER']);
const statuses = sameSpelling<Exclude<DocumentStatus, 'UNKNOWN'>>(['NEW', 'UPLOADED', 'INCOMPLETE', 'SCANNED', 'MALICIOUS']);
const verificationStatuses = sameSpelling<Exclude<VerificationStatus, 'UNKNOWN'>>(['UNVERIFIED', 'VERIFIED']);
const extensions = sameSpelling<FileExtension>(['JPG', 'JPEG', 'PNG', 'PDF']);

const holderTypename = { BENEFICIARY: 'BeneficialOwner', BUSINESS_ACCOUNT: 'BusinessAccount', CUSTOMER: 'CustomerAccount' } as const;

/** A content URL of the given method, or null; the thumbnail spells its method `allow`. */
function contentUrl(url: ContentUrlRecord | null | undefined, method: 'GET' | 'PUT', receivedAt: number): ContentUrlModel | null {
  if (!url?.value || (url.allowed ?? url.allow) !== method) return null;
  return { value: url.value, allowed: method, expiresIn: url.expiresIn ?? null, receivedAt };
}

/** Download URLs are only valid while the file is scanned clean. */
function downloadUrl(model: DocumentModel, url: ContentUrlRecord | null | undefined): ContentUrlModel | null {
  return model.record.status === 'SCANNED' ? contentUrl(url, 'GET', model.receivedAt) : null;
}

/** The update body: the contract's fields only, platform spellings, absent fields left out. */
export function updateBody(input: UpdateDocumentInput): UpdateDocumentBody {
  const body: UpdateDocumentBody = { documentType: documentTypes.toPlatform(input.documentType), name: input.name };
  for (const key of ['description', 'number', 'issuingDate', 'issuingCountryCode', 'issuingStateCode', 'expiryDate'] as const) {
    const value = input[key];
    if (value !== null && value !== undefined) body[key] = value;
  }
  if (input.metadata) body.metadata = input.metadata;
  return body;
}

/** The platform's own field errors (`errors[].path`, e.g. `metadata.key`) as user errors on the input. */
function platformUserErrors(error: PlatformError): UserErrorModel[] {
  const upstreamCode = (error.extensions.upstream as { errorCode?: string } | undefined)?.errorCode;
  if (error.fieldErrors.length === 0) return [{ field: null, message: error.message, code: upstreamCode ?? 'REJECTED' }];
  return error.fieldErrors.map((fieldError) => ({
    field: fieldError.path ? ['input', ...fieldError.path.split('.')] : null,
    message: platformFieldMessage(fieldError.path, fieldError.message),
    code: fieldError.errorCode,
  }));
}

const failed = (userErrors: UserErrorModel[]): UpdateDocumentPayloadModel => ({ document: null, uploadUrl: null, userErrors });

export const Query: Resolvers['Query'] = {
  document: (_, { id }, ctx) => ctx.loaders.document.load(id),
};

export const Mutation: Resolvers['Mutation'] = {
  updateDocument: async (_, { input }, ctx) => {
    const userErrors = validateUpdate(input, new Date().toISOString().slice(0, 10));
    if (userErrors.length > 0) return failed(userErrors);
    try {
      const record = await updateDocument(ctx.platform, input.id, updateBody(input));
      const document: DocumentModel = { record, receivedAt: Date.now() };
      ctx.loaders.document.clear(input.id).prime(input.id, document);
      return { document, uploadUrl: contentUrl(record.url, 'PUT', document.receivedAt), userErrors: [] };
    } catch (error) {
      if (error instanceof PlatformError && error.code === ErrorCode.BAD_USER_INPUT) return failed(platformUserErrors(error));
      throw error;
    }
  },
};

export const Document: Resolvers['Document'] = {
  __resolveReference: (reference, ctx) => ctx.loaders.document.load(reference.id),
  id: (m) => m.record.id,
  providerExternalId: (m) => m.record.providerExternalId ?? null,
  provider: (m) => m.record.provider ?? null,
  businessAccountId: (m) => m.record.businessAccountId ?? null,
  businessAccount: (m) => (m.record.businessAccountId ? { id: m.record.businessAccountId } : null),
  holderId: (m) => m.record.holderId ?? null,
  holderType: (m) => holderTypes.fromPlatform(m.record.holderType, null),
  holder: (m) => {
    const type = holderTypes.fromPlatform(m.record.holderType, null);
    return type && m.record.holderId ? { __typename: holderTypename[type], id: m.record.holderId } : null;
  },
  // documentType is non-null in the schema: an unknown platform type is an upstream fault, not a silent OTHER.
  documentType: (m, _, ctx) => {
    const type = documentTypes.fromPlatform(m.record.documentType, null);
    if (type === null) {
      throw new PlatformError(ErrorCode.UPSTREAM_ERROR, `The platform sent an unknown documentType "${m.record.documentType}"`, {
        requestId: ctx.requestId,
      });
    }
    return type;
  },
  name: (m) => m.record.name ?? null,
  description: (m) => m.record.description ?? null,
  number: (m) => m.record.number ?? null,
  issuingDate: (m) => m.record.issuingDate ?? null,
  issuingCountryCode: (m) => m.record.issuingCountryCode ?? null,
  issuingStateCode: (m) => m.record.issuingStateCode ?? null,
  extension: (m) => extensions.fromPlatform(m.record.extension, null),
  contentLength: (m) => m.record.contentLength ?? null,
  version: (m) => m.record.version ?? null,
  expiryDate: (m) => m.record.expiryDate ?? null,
  url: (m) => downloadUrl(m, m.record.url),
  thumbnailUrl: (m) => downloadUrl(m, m.record.thumbnailUrl),
  status: (m) => statuses.fromPlatform(m.record.status, 'UNKNOWN'),
  verificationStatus: (m) => verificationStatuses.fromPlatform(m.record.verificationStatus, 'UNKNOWN'),
  metadata: (m) => m.record.metadata ?? null,
  createdBy: (m) => m.record.createdBy ?? null,
  createdAt: (m) => m.record.createdAt ?? null,
  updatedBy: (m) => m.record.updatedBy ?? null,
  updatedAt: (m) => m.record.updatedAt ?? null,
};

export const ContentUrl: Resolvers['ContentUrl'] = {
  expiresAt: (url) => (url.expiresIn === null ? null : new Date(url.receivedAt + url.expiresIn * 1000)),
};

export const documentResolvers: Resolvers = { Query, Mutation, Document, ContentUrl };
