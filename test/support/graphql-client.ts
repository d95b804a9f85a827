/** One error of a GraphQL answer, as the gateway writes it: always with extensions (its code, the request id). */
interface GraphQLErrorBody {
  message: string;
  path?: (string | number)[];
  locations?: { line: number; column: number }[];
  extensions: Record<string, unknown>;
}

/** The JSON body of a GraphQL answer. */
export interface GraphQLBody<T = Record<string, unknown>> {
  data?: T | null;
  errors?: GraphQLErrorBody[];
}

/** A GraphQL answer: its HTTP status and its JSON body. */
export interface GraphQLAnswer<T = Record<string, unknown>> {
  status: number;
  body: GraphQLBody<T>;
}

type Headers = Record<string, string>;

/** The `authorization` header of a caller with this token. */
export function bearer(token: string): Headers {
  return { authorization: `Bearer ${token}` };
}

/**
 * POSTs `body` to `endpoint` as JSON (a string is sent as it is: a hand-written or malformed body),
 * stopped by `signal` when given (a caller hanging up): the raw response, for tests that read its headers or text.
 */
export function postJson(endpoint: string, body: unknown, headers: Headers = {}, signal?: AbortSignal): Promise<Response> {
  return fetch(endpoint, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: typeof body === 'string' ? body : JSON.stringify(body), signal });
}

/** POSTs a GraphQL request body (`{ query, variables, … }`) to `endpoint` and reads the JSON answer. */
export async function postGraphQL<T = Record<string, unknown>>(endpoint: string, body: unknown, headers: Headers = {}, signal?: AbortSignal): Promise<GraphQLAnswer<T>> {
  const response = await postJson(endpoint, body, headers, signal);
  return { status: response.status, body: (await response.json()) as GraphQLBody<T> };
}

/** A GraphQL operation sent to one endpoint with the same headers, plus any given per call. */
export type GraphQLClient = <T = Record<string, unknown>>(query: string, variables?: Record<string, unknown>, headers?: Headers) => Promise<GraphQLAnswer<T>>;

/** A client of `endpoint` (a gateway's `/graphql`) sending `headers` (a caller's `bearer(token)`, a request id) with every operation. */
export function graphqlClient(endpoint: string, headers: Headers = {}): GraphQLClient {
  return (query, variables, extra = {}) => postGraphQL(endpoint, { query, variables }, { ...headers, ...extra });
}
