import { readFileSync } from 'node:fs';
import { Ajv, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import { parse } from 'yaml';
import type { SandboxAnswer } from '../../sandbox/index.ts';

// Checks answers against openapi/platform.yaml: for the operation the method and
// path name, the response the status names (or the document's `default`), its
// media type and its JSON schema. The document, the sandbox and the gateway's
// records (generated from the same document) so cannot drift apart unnoticed.

interface ResponseObject {
  $ref?: string;
  content?: Record<string, { schema?: unknown }>;
}
interface Operation {
  responses: Record<string, ResponseObject>;
}
interface OpenApiDocument {
  paths: Record<string, Record<string, Operation | unknown>>;
  components: { responses?: Record<string, ResponseObject> };
}

const DOCUMENT_ID = 'platform.yaml';
const METHODS = ['get', 'put', 'post', 'patch', 'delete'];
/** Top-level keys of an OpenAPI document: not JSON Schema, so the validator is told to ignore them. */
const OPENAPI_KEYWORDS = ['openapi', 'info', 'servers', 'security', 'tags', 'paths', 'components'];

const escapePointer = (segment: string) => segment.replaceAll('~', '~0').replaceAll('/', '~1');

export interface ContractViolation {
  /** `GET /v1/documents/{documentId} → 200`, or the raw request when no operation matched. */
  answer: string;
  problems: string[];
}

export class PlatformContract {
  readonly #document: OpenApiDocument;
  readonly #ajv: Ajv;
  readonly #operations: { method: string; template: string; pattern: RegExp }[] = [];
  readonly #validators = new Map<string, ValidateFunction>();

  constructor(source: string) {
    this.#document = parse(source) as OpenApiDocument;
    this.#ajv = new Ajv({ allErrors: true, strict: true });
    addFormats.default(this.#ajv);
    this.#ajv.addVocabulary(OPENAPI_KEYWORDS);
    this.#ajv.addSchema(this.#document as object, DOCUMENT_ID);
    for (const [template, item] of Object.entries(this.#document.paths)) {
      const pattern = new RegExp(`^${template.replace(/\{[^}]+\}/g, '[^/]+')}$`);
      for (const method of METHODS) if (item[method]) this.#operations.push({ method, template, pattern });
    }
    // Compiled up front, so that a flaw in the document fails here, not inside the sandbox's answer path.
    for (const { method, template } of this.#operations) {
      for (const key of Object.keys((this.#document.paths[template]![method] as Operation).responses)) {
        const { pointer, response } = this.#response(template, method, key);
        for (const mediaType of Object.keys(response.content ?? {})) this.#validator(pointer, mediaType);
      }
    }
  }

  static fromFile(path: URL | string = new URL('../../openapi/platform.yaml', import.meta.url)): PlatformContract {
    return new PlatformContract(readFileSync(path, 'utf8'));
  }

  /** What is wrong with an answer of the platform API; undefined when the document allows it. */
  check(answer: Pick<SandboxAnswer, 'method' | 'path' | 'status' | 'headers' | 'body'>): ContractViolation | undefined {
    const method = answer.method.toLowerCase();
    const operation = this.#operations.find((o) => o.method === method && o.pattern.test(answer.path));
    if (!operation) return { answer: `${answer.method} ${answer.path} → ${answer.status}`, problems: ['the document has no such operation'] };
    const label = `${answer.method} ${operation.template} → ${answer.status}`;
    const responses = (this.#document.paths[operation.template]![method] as Operation).responses;
    const key = String(answer.status) in responses ? String(answer.status) : 'default' in responses ? 'default' : undefined;
    if (key === undefined) return { answer: label, problems: [`status ${answer.status} is not a documented response`] };
    const { pointer, response } = this.#response(operation.template, method, key);
    const mediaType = answer.headers['content-type']?.split(';')[0]?.trim().toLowerCase();
    const body = typeof answer.body === 'string' ? answer.body : answer.body.toString('utf8');
    if (!response.content) return body.length === 0 ? undefined : { answer: label, problems: ['the document describes no body, but one was sent'] };
    if (mediaType === undefined || !(mediaType in response.content)) {
      return { answer: label, problems: [`media type ${mediaType ?? '(none)'} is not one of ${Object.keys(response.content).join(', ')}`] };
    }
    let value: unknown;
    try {
      value = JSON.parse(body);
    } catch {
      return { answer: label, problems: ['the body is not JSON'] };
    }
    const validate = this.#validator(pointer, mediaType);
    if (validate(value)) return undefined;
    return { answer: label, problems: (validate.errors ?? []).map((error) => `${error.instancePath || '(body)'} ${error.message ?? ''}`.trim()) };
  }

  /** The response object for a status key, with the JSON pointer where it lives (following a `$ref` to components). */
  #response(template: string, method: string, key: string): { pointer: string; response: ResponseObject } {
    const response = (this.#document.paths[template]![method] as Operation).responses[key]!;
    if (!response.$ref) return { pointer: `#/paths/${escapePointer(template)}/${method}/responses/${key}`, response };
    return { pointer: response.$ref, response: this.#document.components.responses![response.$ref.split('/').pop()!]! };
  }

  #validator(responsePointer: string, mediaType: string): ValidateFunction {
    const ref = `${DOCUMENT_ID}${responsePointer}/content/${escapePointer(mediaType)}/schema`;
    let validate = this.#validators.get(ref);
    if (!validate) {
      validate = this.#ajv.compile({ $ref: ref });
      this.#validators.set(ref, validate);
    }
    return validate;
  }
}

/**
 * Collects what is wrong with the sandbox's API answers. Content-host answers are
 * not the API the document describes; answers the sandbox marks `offContract`
 * depart from it on purpose (a fault's HTML page or truncated body, the LinX
 * envelope variant) and are counted, not checked.
 */
export class AnswerRecorder {
  readonly violations: ContractViolation[] = [];
  checked = 0;
  offContract = 0;
  readonly #contract: PlatformContract;

  constructor(contract: PlatformContract) {
    this.#contract = contract;
  }

  readonly record = (answer: SandboxAnswer): void => {
    if (answer.host !== 'api') return;
    if (answer.offContract !== undefined) {
      this.offContract += 1;
      return;
    }
    this.checked += 1;
    // Never throws: an exception here would break the sandbox's answer instead of failing the suite.
    try {
      const violation = this.#contract.check(answer);
      if (violation) this.violations.push(violation);
    } catch (error) {
      this.violations.push({ answer: `${answer.method} ${answer.path} → ${answer.status}`, problems: [`could not be checked: ${String(error)}`] });
    }
  };

  /** Throws, listing each distinct violation once, when any answer broke the document. */
  assertAllAllowed(): void {
    if (this.violations.length === 0) return;
    const distinct = [...new Set(this.violations.map((v) => `${v.answer}: ${v.problems.join('; ')}`))];
    throw new Error(`${this.violations.length} of ${this.checked} sandbox answers are not what openapi/platform.yaml allows:\n  ${distinct.join('\n  ')}`);
  }
}
