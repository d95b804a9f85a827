/**
 * The benchmark workloads: the same data, page sizes and selections expressed
 * for each target (direct REST, bare proxy, the design-card floor, the gateway,
 * the peer gateway), each call with a validator that rejects anything but a
 * complete answer.
 */

export const TARGETS = ['rest', 'bare', 'floor', 'gateway', 'peer'] as const;
export type TargetName = (typeof TARGETS)[number];

export const TARGET_LABELS: Record<TargetName, string> = {
  rest: 'Direct REST',
  bare: 'Bare proxy',
  floor: 'Design-card floor (Apollo Server + got, nothing else)',
  gateway: 'Gateway',
  peer: 'Peer (Hive Gateway + Mesh)',
};

export type WorkloadId = 'a' | 'b' | 'c' | 'd' | 'e';

export const PAGE_SIZE = 20;

/** What the workloads address, read from the sandbox before the run. */
export interface Fixtures {
  token: string;
  financialAccountId: string;
  templateId: string;
  templateVersionId: string;
  document: { id: string; documentType: string };
  /** Records the platform returns for a first page of PAGE_SIZE, per area. */
  expected: { exceptions: number; acceptances: number; linx: number };
}

/** A validator answers undefined for a good response, else why it is not. */
export type Validator = (status: number, body: string) => string | undefined;

export interface HttpCall {
  /** Names the call in per-call latency series (the parallel REST baseline). */
  label: string;
  method: 'GET' | 'POST' | 'PUT';
  path: string;
  headers: Record<string, string>;
  body?: string;
  validate: Validator;
}

export interface TargetPlan {
  calls: HttpCall[];
  /**
   * 'single': one HTTP request is one operation. 'parallel': the calls are one
   * operation a client would issue concurrently, so its latency is that of the
   * slowest call and its rate is the request rate divided by the call count.
   */
  shape: 'single' | 'parallel';
}

export interface Workload {
  id: WorkloadId;
  title: string;
  /** A few words for chart labels. */
  short: string;
  /** True for the "simple connection query" the CPU target applies to. */
  simpleConnection: boolean;
  /** True for the several-areas read, whose throughput target against the bare proxy is higher. */
  composite?: boolean;
  plans: Partial<Record<TargetName, TargetPlan>>;
}

type Json = unknown;

function parseJson(body: string): { value: Json } | { error: string } {
  try {
    return { value: JSON.parse(body) as Json };
  } catch {
    return { error: `not JSON: ${body.slice(0, 120)}` };
  }
}

function isObject(value: Json): value is Record<string, Json> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function field(value: Json, ...path: string[]): Json {
  let current = value;
  for (const key of path) current = isObject(current) ? current[key] : undefined;
  return current;
}

/** Checks a list of records: the exact count, each an object with a string id. */
export function checkRecords(list: Json, expected: number, what: string): string | undefined {
  if (!Array.isArray(list)) return `${what}: not a list`;
  if (list.length !== expected) return `${what}: ${list.length} records, expected ${expected}`;
  for (const record of list) if (typeof field(record, 'id') !== 'string') return `${what}: a record without id`;
  return undefined;
}

/** Checks a Relay connection: the exact edge count, each edge with a node that has an id. */
export function checkEdges(connection: Json, expected: number, what: string): string | undefined {
  const edges = field(connection, 'edges');
  if (!Array.isArray(edges)) return `${what}: no edges`;
  return checkRecords(edges.map((edge: Json) => field(edge, 'node')), expected, what);
}

/** A 2xx JSON answer that passes `check`. */
export function restValidator(check: (value: Json) => string | undefined): Validator {
  return (status, body) => {
    if (status < 200 || status >= 300) return `HTTP ${status}: ${body.slice(0, 160)}`;
    const parsed = parseJson(body);
    return 'error' in parsed ? parsed.error : check(parsed.value);
  };
}

/** A GraphQL answer without `errors` whose `data` passes `check`; a 200 with errors is a failure. */
export function graphqlValidator(check: (data: Json) => string | undefined): Validator {
  return (status, body) => {
    const parsed = parseJson(body);
    if ('error' in parsed) return `HTTP ${status}, ${parsed.error}`;
    const errors = field(parsed.value, 'errors');
    if (Array.isArray(errors) && errors.length > 0) {
      const first = errors[0] as Json;
      return `HTTP ${status}, GraphQL error: ${String(field(first, 'message'))} (${String(field(first, 'extensions', 'code'))})`;
    }
    if (status < 200 || status >= 300) return `HTTP ${status}: ${body.slice(0, 160)}`;
    const data = field(parsed.value, 'data');
    if (!isObject(data)) return 'no data';
    return check(data);
  };
}

export function graphqlCall(label: string, token: string, operationName: string, query: string, variables: Record<string, unknown>, validate: Validator): HttpCall {
  return {
    label,
    method: 'POST',
    path: '/graphql',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'apollo-require-preflight': 'true' },
    body: JSON.stringify({ operationName, query: query.replace(/\s+/g, ' ').trim(), variables }),
    validate,
  };
}

export function restCall(label: string, token: string, path: string, validate: Validator, method: 'GET' | 'PUT' = 'GET', body?: unknown): HttpCall {
  const headers: Record<string, string> = { authorization: `Bearer ${token}`, accept: 'application/json' };
  if (body !== undefined) headers['content-type'] = 'application/json';
  return { label, method, path, headers, ...(body === undefined ? {} : { body: JSON.stringify(body) }), validate };
}

/** The platform's name for a document type, and the gateway's and the peer's enum values. */
const DOCUMENT_TYPES: Record<string, { gateway: string; peer: string }> = {
  'driving-license': { gateway: 'DRIVING_LICENSE', peer: 'driving_license' },
  passport: { gateway: 'PASSPORT', peer: 'passport' },
  formation: { gateway: 'FORMATION', peer: 'formation' },
  tax: { gateway: 'TAX', peer: 'tax' },
  ownership: { gateway: 'OWNERSHIP', peer: 'ownership' },
  other: { gateway: 'OTHER', peer: 'other' },
};

/** A valid update body for a document of this platform type (the fields its type requires). */
export function documentUpdateFields(documentType: string): Record<string, string> {
  const fields: Record<string, string> = { name: 'Benchmark identity document' };
  if (documentType === 'passport' || documentType === 'driving-license') {
    fields.number = 'X1234567';
    fields.issuingCountryCode = 'US';
    fields.expiryDate = '2034-12-31';
  }
  if (documentType === 'driving-license') fields.issuingStateCode = 'CA';
  if (['formation', 'tax', 'ownership', 'other'].includes(documentType)) fields.description = 'Updated by the benchmark';
  return fields;
}

const EXCEPTION_FIELDS = 'id status assignedTo { id firstName lastName email } notes { id title contentText }';
const LINX_FIELDS = 'id status templateDisplayName totalRequestsCount';

/** The three-area read of workload (c): what a dashboard asks for when it opens. */
export function dashboardCall(f: Fixtures): HttpCall {
  const n = f.expected;
  return graphqlCall('overview', f.token, 'BenchOverview',
    `query BenchOverview($financialAccountId: ID!, $templateId: ID!, $templateVersionId: ID!) {
      exceptions: exceptions(first: ${PAGE_SIZE}) { edges { node { id status } } }
      acceptances: documentAcceptances(financialAccountId: $financialAccountId, first: ${PAGE_SIZE}) { edges { node { id accepted } } }
      batches: linxBatches(filter: { templateId: $templateId, templateVersionId: $templateVersionId }, first: ${PAGE_SIZE}) { edges { node { id status } } } }`,
    { financialAccountId: f.financialAccountId, templateId: f.templateId, templateVersionId: f.templateVersionId },
    graphqlValidator((d) =>
      checkEdges(field(d, 'exceptions'), n.exceptions, 'exceptions') ??
      checkEdges(field(d, 'acceptances'), n.acceptances, 'acceptances') ??
      checkEdges(field(d, 'batches'), n.linx, 'LinX batches')));
}

/**
 * The least a GraphQL request can cost: no platform call, so that a fixed
 * per-request cost (the rate limiter's) is the largest share of it.
 */
export function pingCall(token: string): HttpCall {
  return graphqlCall('ping', token, 'BenchPing', 'query BenchPing { __typename }', {},
    graphqlValidator((d) => (field(d, '__typename') === 'Query' ? undefined : 'no __typename')));
}

export function buildWorkloads(f: Fixtures): Workload[] {
  const n = f.expected;
  const exceptionsPath = `/exceptions?page=0&size=${PAGE_SIZE}`;
  const acceptancesPath = `/v1/acceptances?financialAccountId=${encodeURIComponent(f.financialAccountId)}&page=0&size=${PAGE_SIZE}`;
  const linxPath = `/v2/linx/workflow-batches?templateId=${encodeURIComponent(f.templateId)}&templateVersionId=${encodeURIComponent(f.templateVersionId)}&page=1&size=${PAGE_SIZE}`;
  const documentPath = `/v1/documents/${encodeURIComponent(f.document.id)}`;
  const linxVariables = { templateId: f.templateId, templateVersionId: f.templateVersionId };

  const restExceptions = restValidator((v) => checkRecords(field(v, 'content'), n.exceptions, 'exceptions'));
  const restAcceptances = restValidator((v) => checkRecords(field(v, 'content'), n.acceptances, 'acceptances'));
  const restLinx = restValidator((v) => checkRecords(v, n.linx, 'LinX batches'));
  const restDocument = restValidator((v) => (field(v, 'id') === f.document.id ? undefined : 'another document'));
  const batchValidator = restValidator((v) => {
    if (!Array.isArray(v) || v.length !== 3) return 'batch: not three answers';
    return (
      checkRecords(field(v[0], 'content'), n.exceptions, 'exceptions') ??
      checkRecords(field(v[1], 'content'), n.acceptances, 'acceptances') ??
      checkRecords(v[2], n.linx, 'LinX batches')
    );
  });

  const type = DOCUMENT_TYPES[f.document.documentType];
  if (!type) throw new Error(`unknown document type ${f.document.documentType}`);
  const update = documentUpdateFields(f.document.documentType);

  const workloads: Workload[] = [
    {
      id: 'a',
      short: 'exceptions page',
      title: `Exceptions page of ${PAGE_SIZE} with assignee and note`,
      simpleConnection: true,
      plans: {
        rest: { shape: 'single', calls: [restCall('exceptions', f.token, exceptionsPath, restExceptions)] },
        bare: { shape: 'single', calls: [restCall('exceptions', f.token, exceptionsPath, restExceptions)] },
        gateway: {
          shape: 'single',
          calls: [graphqlCall('exceptions', f.token, 'BenchExceptions',
            `query BenchExceptions { exceptions(first: ${PAGE_SIZE}) { edges { cursor node { ${EXCEPTION_FIELDS} } } pageInfo { hasNextPage endCursor } totalCount } }`,
            {}, graphqlValidator((d) => checkEdges(field(d, 'exceptions'), n.exceptions, 'exceptions')))],
        },
        peer: {
          shape: 'single',
          calls: [graphqlCall('exceptions', f.token, 'BenchExceptions',
            `query BenchExceptions { exceptions(page: 0, size: ${PAGE_SIZE}) { ... on ExceptionPage { content { ${EXCEPTION_FIELDS} } hasNext totalElements } } }`,
            {}, graphqlValidator((d) => checkRecords(field(d, 'exceptions', 'content'), n.exceptions, 'exceptions')))],
        },
      },
    },
    {
      id: 'b',
      short: 'LinX page',
      title: `LinX batches page of ${PAGE_SIZE}`,
      simpleConnection: true,
      plans: {
        rest: { shape: 'single', calls: [restCall('linx', f.token, linxPath, restLinx)] },
        bare: { shape: 'single', calls: [restCall('linx', f.token, linxPath, restLinx)] },
        gateway: {
          shape: 'single',
          calls: [graphqlCall('linx', f.token, 'BenchLinx',
            `query BenchLinx($templateId: ID!, $templateVersionId: ID!) {
              linxBatches(filter: { templateId: $templateId, templateVersionId: $templateVersionId }, first: ${PAGE_SIZE}) { edges { node { ${LINX_FIELDS} } } } }`,
            linxVariables, graphqlValidator((d) => checkEdges(field(d, 'linxBatches'), n.linx, 'LinX batches')))],
        },
        peer: {
          shape: 'single',
          calls: [graphqlCall('linx', f.token, 'BenchLinx',
            `query BenchLinx($templateId: UUID!, $templateVersionId: UUID!) {
              linxBatches(templateId: $templateId, templateVersionId: $templateVersionId, page: 1, size: ${PAGE_SIZE}) { ... on LinxBatchDetail { ${LINX_FIELDS} } } }`,
            linxVariables, graphqlValidator((d) => checkRecords(field(d, 'linxBatches'), n.linx, 'LinX batches')))],
        },
      },
    },
    {
      id: 'c',
      short: 'three areas',
      title: 'Three areas in one query (exceptions, acceptances, LinX)',
      simpleConnection: false,
      composite: true,
      plans: {
        rest: {
          shape: 'parallel',
          calls: [
            restCall('exceptions', f.token, exceptionsPath, restExceptions),
            restCall('acceptances', f.token, acceptancesPath, restAcceptances),
            restCall('linx', f.token, linxPath, restLinx),
          ],
        },
        bare: {
          shape: 'single',
          calls: [restCall('batch', f.token, `/__batch?${[exceptionsPath, acceptancesPath, linxPath].map((p) => `u=${encodeURIComponent(p)}`).join('&')}`, batchValidator)],
        },
        gateway: { shape: 'single', calls: [dashboardCall(f)] },
        peer: {
          shape: 'single',
          calls: [graphqlCall('overview', f.token, 'BenchOverview',
            `query BenchOverview($financialAccountId: UUID!, $templateId: UUID!, $templateVersionId: UUID!) {
              exceptions: exceptions(page: 0, size: ${PAGE_SIZE}) { ... on ExceptionPage { content { id status } } }
              acceptances: documentAcceptances(financialAccountId: $financialAccountId, page: 0, size: ${PAGE_SIZE}) { ... on DocumentAcceptancePage { content { id accepted } } }
              batches: linxBatches(templateId: $templateId, templateVersionId: $templateVersionId, page: 1, size: ${PAGE_SIZE}) { ... on LinxBatchDetail { id status } } }`,
            { financialAccountId: f.financialAccountId, ...linxVariables },
            graphqlValidator((d) =>
              checkRecords(field(d, 'exceptions', 'content'), n.exceptions, 'exceptions') ??
              checkRecords(field(d, 'acceptances', 'content'), n.acceptances, 'acceptances') ??
              checkRecords(field(d, 'batches'), n.linx, 'LinX batches')))],
        },
      },
    },
    {
      id: 'd',
      short: 'document read',
      title: 'Document retrieve',
      simpleConnection: false,
      plans: {
        rest: { shape: 'single', calls: [restCall('document', f.token, documentPath, restDocument)] },
        bare: { shape: 'single', calls: [restCall('document', f.token, documentPath, restDocument)] },
        gateway: {
          shape: 'single',
          calls: [graphqlCall('document', f.token, 'BenchDocument',
            'query BenchDocument($id: ID!) { document(id: $id) { id name status documentType } }',
            { id: f.document.id }, graphqlValidator((d) => (field(d, 'document', 'id') === f.document.id ? undefined : 'no document')))],
        },
        peer: {
          shape: 'single',
          calls: [graphqlCall('document', f.token, 'BenchDocument',
            'query BenchDocument($id: String!) { document(documentId: $id) { ... on Document { id name status documentType } } }',
            { id: f.document.id }, graphqlValidator((d) => (field(d, 'document', 'id') === f.document.id ? undefined : 'no document')))],
        },
      },
    },
    {
      id: 'e',
      short: 'document update',
      title: 'Document update mutation',
      simpleConnection: false,
      plans: {
        rest: {
          shape: 'single',
          calls: [restCall('update', f.token, documentPath,
            restValidator((v) => (field(v, 'id') === f.document.id ? undefined : 'another document')), 'PUT',
            { documentType: f.document.documentType, ...update })],
        },
        gateway: {
          shape: 'single',
          calls: [graphqlCall('update', f.token, 'BenchUpdate',
            'mutation BenchUpdate($input: UpdateDocumentInput!) { updateDocument(input: $input) { document { id version } uploadUrl { value } userErrors { field message code } } }',
            { input: { id: f.document.id, documentType: type.gateway, ...update } },
            graphqlValidator((d) => {
              const userErrors = field(d, 'updateDocument', 'userErrors');
              if (Array.isArray(userErrors) && userErrors.length > 0) return `userErrors: ${JSON.stringify(userErrors).slice(0, 160)}`;
              if (field(d, 'updateDocument', 'document', 'id') !== f.document.id) return 'no document';
              return typeof field(d, 'updateDocument', 'uploadUrl', 'value') === 'string' ? undefined : 'no upload URL';
            }))],
        },
        peer: {
          shape: 'single',
          calls: [graphqlCall('update', f.token, 'BenchUpdate',
            'mutation BenchUpdate($id: String!, $input: DocumentUpdate_Input) { updateDocument(documentId: $id, input: $input) { ... on Document { id version url { value } } } }',
            { id: f.document.id, input: { documentType: type.peer, ...update } },
            graphqlValidator((d) => {
              if (field(d, 'updateDocument', 'id') !== f.document.id) return `no document: ${JSON.stringify(d).slice(0, 160)}`;
              return typeof field(d, 'updateDocument', 'url', 'value') === 'string' ? undefined : 'no upload URL';
            }))],
        },
      },
    },
  ];
  // The floor serves the gateway's queries, so it is measured with the very same calls and validators.
  // It has no mutation: the update is the gateway's alone.
  for (const workload of workloads) if (workload.id !== 'e') workload.plans.floor = workload.plans.gateway;
  return workloads;
}
