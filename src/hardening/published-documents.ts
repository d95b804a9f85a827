import { setImmediate as turn } from 'node:timers/promises';
import { Kind, parse, specifiedRules, validate, type GraphQLSchema, type ParseOptions, type ValidationRule } from 'graphql';
import type { Logger } from 'pino';
import { DocumentStoreUnavailable, MemoryDocumentStore, RedisDocumentStore, WorkerGroupDocumentStore, type DocumentStore, type PublishedApp } from './document-stores.ts';
import { sharedStore } from '../shared-state/store.ts';
import { documentsById, manifestDocuments, TrustedDocumentsError, type TrustedDocuments } from './trusted-documents.ts';

/**
 * Trusted documents published at run time: an app's deploy sends its manifest to the admin listener
 * (`PUT /trusted-documents/{app}`, `npm run trust -- publish`), every document is parsed and
 * validated against the schema with the gateway's own rules before anything is stored, and from then
 * on every replica serves them beside TRUSTED_DOCUMENTS' (src/hardening/document-stores.ts says
 * where they are kept). `DELETE` retires an app's documents.
 */

/** An app's name: what a URL path segment and a Redis key hold without escaping. */
const APP_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;
/** Bounds on what publishers can grow: apps, documents per app, and the text of all apps together. */
export const MAX_APPS = 100;
const MAX_DOCUMENTS_PER_APP = 5_000;
const MAX_PUBLISHED_CHARS = 32 * 1024 * 1024;
/** Documents validated between two turns of the event loop: a large manifest never holds requests up for long. */
const VALIDATED_PER_TURN = 20;

/** A request of the admin listener's /trusted-documents routes, as the gateway's loop is given it. */
export interface DocumentsRequest {
  method: 'GET' | 'PUT' | 'DELETE';
  /** The app of `/trusted-documents/{app}`; undefined for the list. */
  app?: string;
  /** The manifest's text (PUT). */
  body?: string;
}

export interface DocumentsAnswer {
  status: number;
  body: Record<string, unknown>;
}

/** What every replica serves now: the union of the apps' documents. */
export class PublishedDocuments implements TrustedDocuments {
  #byId = new Map<string, string>();
  #count = 0;
  #apps: readonly PublishedApp[] = [];
  readonly #logger: Logger;

  constructor(logger: Logger) {
    this.#logger = logger;
  }

  lookup(id: string): string | undefined {
    return this.#byId.get(id);
  }

  get size(): number {
    return this.#count;
  }

  get apps(): readonly PublishedApp[] {
    return this.#apps;
  }

  /** Serves these apps from now on. Apps are taken in name order, so every replica resolves a clash the same way. */
  serve(apps: readonly PublishedApp[]): void {
    const sorted = [...apps].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    const byId = new Map<string, string>();
    let count = 0;
    for (const app of sorted) {
      for (const [id, text] of documentsById(Object.entries(app.documents))) {
        const held = byId.get(id);
        // A publication is refused when it clashes; two replicas publishing at once could still make one.
        if (held !== undefined && held !== text) this.#logger.warn({ app: app.name, id }, 'published trusted documents: an id two apps give different texts; the first app\'s is served');
        else byId.set(id, text);
      }
      count += Object.keys(app.documents).length;
    }
    this.#byId = byId;
    this.#count = count;
    this.#apps = sorted;
  }
}

/** The store this process keeps published documents in: Redis with REDIS_URL, else the group's primary, else memory. */
export async function documentStore(redisUrl: string | undefined, logger: Logger): Promise<DocumentStore> {
  const store = sharedStore(redisUrl);
  if (store.kind === 'redis') return RedisDocumentStore.connect(store.url, logger);
  if (store.kind === 'primary') return WorkerGroupDocumentStore.connect(logger);
  return new MemoryDocumentStore();
}

export interface DocumentsAdminOptions {
  store: DocumentStore;
  /** TRUSTED_DOCUMENTS' documents, which a published id must not contradict. */
  file: TrustedDocuments | undefined;
  schema: GraphQLSchema;
  /** The gateway's own parse options (MAX_QUERY_TOKENS) and validation rules (depth, aliases, directives, introspection). */
  parseOptions: ParseOptions;
  validationRules: readonly ValidationRule[];
  logger: Logger;
}

const refusal = (status: number, error: string, more: Record<string, unknown> = {}): DocumentsAnswer => ({ status, body: { error, ...more } });

/** The first error of one document against the schema, or undefined when it would run. */
function documentError(text: string, options: DocumentsAdminOptions): string | undefined {
  let document;
  try {
    document = parse(text, options.parseOptions);
  } catch (error) {
    return (error as Error).message;
  }
  const operations = document.definitions.filter((definition) => definition.kind === Kind.OPERATION_DEFINITION).length;
  if (operations !== 1) return `holds ${operations} operations, not one`;
  const errors = validate(options.schema, document, [...specifiedRules, ...options.validationRules]);
  return errors[0]?.message;
}

/** The manifest's documents, each checked; an answer refusing the whole manifest at the first that fails. */
async function checkedManifest(app: string, body: string, options: DocumentsAdminOptions): Promise<Map<string, string> | DocumentsAnswer> {
  let manifest: unknown;
  try {
    manifest = JSON.parse(body);
  } catch {
    return refusal(400, 'the manifest is not JSON: send Relay\'s map of id → document, Apollo\'s persisted-query manifest or the client preset\'s persisted-documents.json');
  }
  let documents: Map<string, string>;
  try {
    documents = manifestDocuments(manifest, `app "${app}"`);
  } catch (error) {
    if (error instanceof TrustedDocumentsError) return refusal(400, error.message);
    throw error;
  }
  if (documents.size > MAX_DOCUMENTS_PER_APP) return refusal(413, `the manifest holds ${documents.size} documents; an app publishes at most ${MAX_DOCUMENTS_PER_APP}`);
  let checked = 0;
  for (const [id, text] of documents) {
    const error = documentError(text, options);
    if (error !== undefined) return refusal(400, `document "${id}" does not validate: ${error}`, { id });
    if (++checked % VALIDATED_PER_TURN === 0) await turn();
  }
  return documents;
}

/** The id of a document that another app (or the file) gives another text, if any. */
function clash(app: string, documents: Map<string, string>, others: readonly PublishedApp[], file: TrustedDocuments | undefined): { id: string; by: string } | undefined {
  const held = new Map<string, { text: string; by: string }>();
  for (const other of others) {
    if (other.name === app) continue;
    for (const [id, text] of Object.entries(other.documents)) held.set(id, { text, by: `app "${other.name}"` });
  }
  for (const [id, text] of documents) {
    const fromFile = file?.lookup(id);
    if (fromFile !== undefined && fromFile !== text) return { id, by: 'TRUSTED_DOCUMENTS' };
    const other = held.get(id);
    if (other !== undefined && other.text !== text) return { id, by: other.by };
  }
  return undefined;
}

const charsOf = (apps: readonly PublishedApp[]) => apps.reduce((sum, app) => sum + Object.entries(app.documents).reduce((n, [id, text]) => n + id.length + text.length, 0), 0);

/** The gateway loop's side of the admin listener's /trusted-documents routes. */
export function documentsAdmin(options: DocumentsAdminOptions): (request: DocumentsRequest) => Promise<DocumentsAnswer> {
  const { store, logger } = options;
  const unavailable = (error: DocumentStoreUnavailable) => refusal(503, `${error.message}: nothing was changed`);
  const handle = async (request: DocumentsRequest): Promise<DocumentsAnswer> => {
    if (request.method === 'GET') {
      const apps = await store.read();
      return {
        status: 200,
        body: {
          apps: apps.map((app) => ({ name: app.name, documents: Object.keys(app.documents).length, ids: Object.keys(app.documents).sort(), publishedAt: app.publishedAt })),
          ...(options.file ? { file: { documents: options.file.size } } : {}),
        },
      };
    }
    const app = request.app ?? '';
    if (!APP_NAME.test(app)) return refusal(400, 'an app\'s name is 1 to 64 letters, digits, dots, dashes or underscores, starting with a letter or digit');
    if (request.method === 'DELETE') {
      const removed = await store.remove(app);
      if (!removed) return refusal(404, `no documents are published for app "${app}"`);
      logger.info({ app }, 'published trusted documents retired');
      return { status: 200, body: { app, retired: true } };
    }
    const documents = await checkedManifest(app, request.body ?? '', options);
    if (!(documents instanceof Map)) {
      logger.info({ app, status: documents.status, error: documents.body.error }, 'trusted documents refused: nothing was published');
      return documents;
    }
    const others = await store.read();
    if (!others.some((other) => other.name === app) && others.length >= MAX_APPS) return refusal(409, `${MAX_APPS} apps are published already: retire one first`);
    const clashing = clash(app, documents, others, options.file);
    if (clashing) return refusal(409, `document "${clashing.id}" is published by ${clashing.by} with another text`, { id: clashing.id });
    const published: PublishedApp = { name: app, documents: Object.fromEntries(documents), publishedAt: new Date().toISOString() };
    if (charsOf([...others.filter((other) => other.name !== app), published]) > MAX_PUBLISHED_CHARS) {
      return refusal(413, `the published documents would exceed ${MAX_PUBLISHED_CHARS} characters in all: retire an app first`);
    }
    await store.put(published);
    logger.info({ app, documents: documents.size }, 'trusted documents published');
    return { status: 200, body: { app, documents: documents.size } };
  };
  return (request) =>
    handle(request).catch((error: unknown) => {
      if (error instanceof DocumentStoreUnavailable) return unavailable(error);
      throw error;
    });
}

/** Starts serving what the store holds, and every change to it. */
export function servePublished(store: DocumentStore, served: PublishedDocuments): void {
  store.watch((apps) => served.serve(apps));
}
