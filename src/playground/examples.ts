import type { PlaygroundTab } from './page-config.ts';

/**
 * Ids and inputs the example operations run with. Over the embedded sandbox they
 * come from its seeded records, so every example answers real data on the first
 * click; over a real platform the placeholders tell the user what to fill in.
 */
export interface ExampleValues {
  financialAccountId: string;
  templateId: string;
  templateVersionId: string;
  documentId: string;
  /** A complete, valid `UpdateDocumentInput` (GraphQL enum spellings). */
  updateInput: Record<string, unknown>;
}

export const PLACEHOLDER_VALUES: ExampleValues = {
  financialAccountId: '<financial account id>',
  templateId: '<LinX template id>',
  templateVersionId: '<LinX template version id>',
  documentId: '<document id>',
  updateInput: {
    id: '<document id>',
    documentType: 'PASSPORT',
    name: 'Passport',
    number: 'X1234567',
    issuingCountryCode: 'US',
    issuingDate: '2021-05-04',
    expiryDate: '2031-05-03',
    metadata: { source: 'playground' },
  },
};

const EXCEPTIONS = /* GraphQL */ `# Exceptions of the caller's Business Account, newest first.
# Next page: copy pageInfo.endCursor into the "after" variable and run again.
# Previous page: use "last" with "before" = pageInfo.startCursor instead.
# A cursor only works with the filter and order it came from.
query ExceptionsPage($filter: ExceptionFilter, $first: Int, $after: String, $orderBy: [ExceptionOrder!]) {
  exceptions(filter: $filter, first: $first, after: $after, orderBy: $orderBy) {
    totalCount
    pageInfo { hasNextPage hasPreviousPage startCursor endCursor }
    edges {
      cursor
      node {
        id
        category
        type
        status
        description
        assignedTo { id firstName lastName email }
        entity {
          __typename
          ... on FinancialAccount { id }
          ... on CustomerAccount { id }
          ... on Transaction { id }
        }
        createdBy { id type }
        createdAt
      }
    }
  }
}
`;

const LINX = /* GraphQL */ `# LinX workflow batches of one template version. "search" and "status"
# in the filter narrow the list further (every search word must match).
query LinxBatches($filter: LinxBatchFilter!, $first: Int, $after: String) {
  linxBatches(filter: $filter, first: $first, after: $after) {
    totalCount
    pageInfo { hasNextPage endCursor }
    nodes {
      id
      status
      templateDisplayName
      templateVersion
      totalRequestsCount
      completedRequestsCount
      failedRequestsCount
      createdAt
    }
  }
}
`;

const ACCEPTANCES = /* GraphQL */ `# Accepted and rejected legal documents of a Financial Account.
query DocumentAcceptances($financialAccountId: ID!, $first: Int, $after: String, $orderBy: [DocumentAcceptanceOrder!]) {
  documentAcceptances(financialAccountId: $financialAccountId, first: $first, after: $after, orderBy: $orderBy) {
    totalCount
    pageInfo { hasNextPage endCursor }
    edges {
      cursor
      node {
        id
        documentId
        documentVersion
        accepted
        acceptorType
        acceptorId
        respondedAt
        downloadUrl
      }
    }
  }
}
`;

const DOCUMENT = /* GraphQL */ `# One identity document with fresh, short-lived content URLs
# (url and thumbnailUrl are only present once the file is scanned clean).
query Document($id: ID!) {
  document(id: $id) {
    id
    documentType
    name
    description
    status
    verificationStatus
    holderType
    holder {
      __typename
      ... on BusinessAccount { id }
      ... on CustomerAccount { id }
      ... on BeneficialOwner { id }
    }
    extension
    contentLength
    version
    expiryDate
    url { value allowed expiresAt }
    thumbnailUrl { value allowed expiresAt }
    metadata
    updatedAt
  }
}
`;

const UPDATE_DOCUMENT = /* GraphQL */ `# Update a document's details. Broken rules come back in userErrors;
# on success, HTTP PUT the file bytes to uploadUrl.value before it expires.
mutation UpdateDocument($input: UpdateDocumentInput!) {
  updateDocument(input: $input) {
    userErrors { field message code }
    document { id name version status updatedAt }
    uploadUrl { value allowed expiresAt }
  }
}
`;

const json = (value: unknown) => JSON.stringify(value, null, 2);

/** The playground's opening tabs: one runnable operation per area of the API. */
export function exampleTabs(values: ExampleValues, headers: string): PlaygroundTab[] {
  return [
    {
      query: EXCEPTIONS,
      variables: json({
        filter: { status: ['NEW', 'IN_PROGRESS'], category: 'BANK_ACCOUNT_VERIFICATION' },
        first: 5,
        after: null,
        orderBy: [{ field: 'CREATED_AT', direction: 'DESC' }],
      }),
      headers,
    },
    {
      query: LINX,
      variables: json({ filter: { templateId: values.templateId, templateVersionId: values.templateVersionId }, first: 5, after: null }),
      headers,
    },
    {
      query: ACCEPTANCES,
      variables: json({
        financialAccountId: values.financialAccountId,
        first: 5,
        after: null,
        orderBy: [{ field: 'RESPONDED_AT', direction: 'DESC' }],
      }),
      headers,
    },
    { query: DOCUMENT, variables: json({ id: values.documentId }), headers },
    { query: UPDATE_DOCUMENT, variables: json({ input: values.updateInput }), headers },
  ];
}
