import { ErrorCode } from '../errors.ts';
import type { DocumentHolderType, DocumentStatus, DocumentType, FileExtension, Resolvers, UpdateDocumentInput, VerificationStatus } from '../generated/graphql.ts';
import { PlatformError } from '../platform/platform-error.ts';
import type { PlatformSchema } from '../platform/records.ts';
import { uuidArgument } from '../platform/ids.ts';
import { enumMapping } from '../platform/values.ts';
import { updateDocument } from './api.ts';
import type { ContentUrlModel, ContentUrlRecord, DocumentModel, UpdateDocumentBody, UpdateDocumentPayloadModel, UserErrorModel } from './records.ts';
import { platformFieldMessage, validateUpdate } from './validation.ts';
import { recordFeedField } from '../subscriptions/index.ts';
import { documentFeed } from './feeds.ts';

const PLATFORM_DOCUMENT_TYPES = {
  DRIVING_LICENSE: 'driving-license',
  PASSPORT: 'passport',
  FORMATION: 'formation',
  TAX: 'tax',
  OWNERSHIP: 'ownership',
  OTHER: 'other',
} as const satisfies Record<DocumentType, PlatformSchema['DocumentType']>;
export const documentTypes = enumMapping<DocumentType>(PLATFORM_DOCUMENT_TYPES);
// Schema value → platform value; `satisfies` makes a missing or extra value a compile error.
const holderTypes = enumMapping({
  BENEFICIARY: 'BENEFICIARY',
  BUSINESS_ACCOUNT: 'BUSINESS_ACCOUNT',
  CUSTOMER: 'CUSTOMER',
} satisfies Record<DocumentHolderType, PlatformSchema['HolderType']>);
const statuses = enumMapping({
  NEW: 'NEW',
  UPLOADED: 'UPLOADED',
  INCOMPLETE: 'INCOMPLETE',
  SCANNED: 'SCANNED',
  MALICIOUS: 'MALICIOUS',
} satisfies Record<Exclude<DocumentStatus, 'UNKNOWN'>, PlatformSchema['DocumentStatus']>);
const verificationStatuses = enumMapping({
  UNVERIFIED: 'UNVERIFIED',
  VERIFIED: 'VERIFIED',
} satisfies Record<Exclude<VerificationStatus, 'UNKNOWN'>, PlatformSchema['VerificationStatus']>);
const extensions = enumMapping({ JPG: 'JPG', JPEG: 'JPEG', PNG: 'PNG', PDF: 'PDF' } satisfies Record<FileExtension, PlatformSchema['FileExtension']>);

const holderTypename = {
  BENEFICIARY: 'BeneficialOwner',
  BUSINESS_ACCOUNT: 'BusinessAccount',
  CUSTOMER: 'CustomerAccount',
} as const satisfies Record<DocumentHolderType, string>;

/** A content URL of the given method, or null; the thumbnail spells its method `allow`. */
function contentUrl(url: ContentUrlRecord | null | undefined, method: 'GET' | 'PUT', receivedAt: number): ContentUrlModel | null {
  if (!url?.value || (url.allowed ?? url.allow) !== method) return null;
  return { value: url.value, allowed: method, expiresIn: url.expiresIn ?? null, receivedAt };
}

/** Download URLs are only valid while the file is scanned clean. */
function downloadUrl(document: DocumentModel, url: ContentUrlRecord | null | undefined): ContentUrlModel | null {
  return document.status === 'SCANNED' ? contentUrl(url, 'GET', document.receivedAt) : null;
}

/** The update body: the contract's fields only, platform spellings, absent fields left out. */
function updateBody(input: UpdateDocumentInput): UpdateDocumentBody {
  const body: UpdateDocumentBody = { documentType: PLATFORM_DOCUMENT_TYPES[input.documentType], name: input.name };
  for (const key of ['description', 'number', 'issuingDate', 'issuingCountryCode', 'issuingStateCode', 'expiryDate'] as const) {
    const value = input[key];
    if (value !== null && value !== undefined) body[key] = value;
  }
  // validateUpdate has refused every non-string metadata value by now.
  if (input.metadata) body.metadata = input.metadata as PlatformSchema['Metadata'];
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

const Query: Resolvers['Query'] = {
  document: (_, { id }, ctx) => ctx.loaders.document.load(uuidArgument(id, ['id'])),
};

const Mutation: Resolvers['Mutation'] = {
  updateDocument: async (_, { input }, ctx) => {
    // Not a broken rule of the details: no document could be meant, so no payload.
    uuidArgument(input.id, ['input', 'id']);
    const userErrors = validateUpdate(input, new Date().toISOString().slice(0, 10));
    if (userErrors.length > 0) return failed(userErrors);
    try {
      const document: DocumentModel = { ...(await updateDocument(ctx.platform, input.id, updateBody(input))), receivedAt: Date.now() };
      ctx.loaders.document.clear(input.id).prime(input.id, document);
      return { document, uploadUrl: contentUrl(document.url, 'PUT', document.receivedAt), userErrors: [] };
    } catch (error) {
      if (error instanceof PlatformError && error.code === ErrorCode.BAD_USER_INPUT) return failed(platformUserErrors(error));
      throw error;
    }
  },
};

// Fields named as in the record (id, name, version, createdAt, …) resolve by default;
// these convert a value or build an entity reference.
const Document: Resolvers['Document'] = {
  __resolveReference: (reference, ctx) => ctx.loaders.document.load(reference.id),
  businessAccount: (document) => (document.businessAccountId ? { id: document.businessAccountId } : null),
  holderType: (document) => holderTypes.fromPlatform(document.holderType, null),
  holder: (document) => {
    const type = holderTypes.fromPlatform(document.holderType, null);
    return type && document.holderId ? { __typename: holderTypename[type], id: document.holderId } : null;
  },
  // documentType is non-null in the schema: an unknown platform type is an upstream fault, not a silent OTHER.
  documentType: (document) => {
    const type = documentTypes.fromPlatform(document.documentType, null);
    if (type === null) {
      throw new PlatformError(ErrorCode.UPSTREAM_ERROR, `The platform sent an unknown documentType "${document.documentType}"`);
    }
    return type;
  },
  extension: (document) => extensions.fromPlatform(document.extension, null),
  url: (document) => downloadUrl(document, document.url),
  thumbnailUrl: (document) => downloadUrl(document, document.thumbnailUrl),
  status: (document) => statuses.fromPlatform(document.status, 'UNKNOWN'),
  verificationStatus: (document) => verificationStatuses.fromPlatform(document.verificationStatus, 'UNKNOWN'),
};

const ContentUrl: Resolvers['ContentUrl'] = {
  expiresAt: (url) => (url.expiresIn === null ? null : new Date(url.receivedAt + url.expiresIn * 1000)),
};

const documentChanged = recordFeedField(documentFeed);

const Subscription: Resolvers['Subscription'] = {
  documentChanged: {
    ...documentChanged,
    subscribe: (parent, args, context) => documentChanged.subscribe(parent, { id: uuidArgument(args.id, ['id']) }, context),
  },
};

export const documentResolvers: Resolvers = { Query, Mutation, Subscription, Document, ContentUrl };
