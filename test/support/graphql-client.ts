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

/**
 * A JSON answer (or a batch's array of them) without `extensions.cost`, which every answer of an
 * operation carries (src/budgets/plugin.ts), and without `extensions` when nothing else was in it:
 * for the tests whose subject is not what a query costs. test/budgets/ reads the cost where it is.
 */
export function withoutCost<T>(body: T): T {
  if (Array.isArray(body)) return body.map((item: unknown) => withoutCost(item)) as T;
  if (typeof body !== 'object' || body === null || !('extensions' in body)) return body;
  const { extensions, ...rest } = body as { extensions: unknown };
  if (typeof extensions !== 'object' || extensions === null || !('cost' in extensions)) return body;
  const { cost: _cost, ...others } = extensions as { cost: unknown };
  return (Object.keys(others).length === 0 ? rest : { ...rest, extensions: others }) as T;
}

/** POSTs a GraphQL request body (`{ query, variables, … }`) to `endpoint` and reads the JSON answer, without its cost (`withoutCost`). */
export async function postGraphQL<T = Record<string, unknown>>(endpoint: string, body: unknown, headers: Headers = {}, signal?: AbortSignal): Promise<GraphQLAnswer<T>> {
  const response = await postJson(endpoint, body, headers, signal);
  return { status: response.status, body: withoutCost((await response.json()) as GraphQLBody<T>) };
}

/** A GraphQL operation sent to one endpoint with the same headers, plus any given per call. */
export type GraphQLClient = <T = Record<string, unknown>>(query: string, variables?: Record<string, unknown>, headers?: Headers) => Promise<GraphQLAnswer<T>>;

/** A client of `endpoint` (a gateway's `/graphql`) sending `headers` (a caller's `bearer(token)`, a request id) with every operation. */
export function graphqlClient(endpoint: string, headers: Headers = {}): GraphQLClient {
  return (query, variables, extra = {}) => postGraphQL(endpoint, { query, variables }, { ...headers, ...extra });
}
