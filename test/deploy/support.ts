import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { freePort } from '../../scripts/free-port.ts';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { parseAllDocuments } from 'yaml';
import { loadConfig } from '../../src/settings/config.ts';
import { startSandbox, type Sandbox } from '../../sandbox/index.ts';
import { startGatewayProcess, type GatewayProcess } from '../support/gateway-process.ts';

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const KUBERNETES_DIR = join(ROOT, 'deploy/kubernetes/base');
/** The gateway's settings file, which the base's configMapGenerator turns into its ConfigMap. */
const SETTINGS_FILE = join(KUBERNETES_DIR, 'gateway.env');
export const PROMETHEUS_DIR = join(ROOT, 'deploy/prometheus');
export const DASHBOARD_FILE = join(ROOT, 'deploy/grafana/gateway-dashboard.json');

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- manifests are plain YAML, checked by the Kubernetes schemas
export type Json = any;

export interface Manifest {
  /** File name inside deploy/kubernetes/base/ (or the kustomization a rendered object came from). */
  file: string;
  /** Position of the document in its file (files may hold several, separated by `---`). */
  index: number;
  object: Json;
}

export const KUSTOMIZATION = 'kustomization.yaml';

/** Every YAML document of deploy/kubernetes/base/ but the kustomization, in file order. */
export function readManifests(): Manifest[] {
  const files = readdirSync(KUBERNETES_DIR).filter((file) => /\.ya?ml$/.test(file) && file !== KUSTOMIZATION).sort();
  return files.flatMap((file) =>
    parseAllDocuments(readFileSync(join(KUBERNETES_DIR, file), 'utf8')).map((document, index) => {
      if (document.errors.length > 0) throw new Error(`${file}: ${document.errors.map((e) => e.message).join('; ')}`);
      return { file, index, object: document.toJS() as Json };
    }),
  );
}

export function readYaml(path: string): Json {
  const documents = parseAllDocuments(readFileSync(path, 'utf8'));
  if (documents.length !== 1 || documents[0]!.errors.length > 0) throw new Error(`${path}: not one YAML document`);
  return documents[0]!.toJS() as Json;
}

export const describeManifest = (m: Manifest) => `${m.file}#${m.index} ${String(m.object?.kind)}/${String(m.object?.metadata?.name)}`;

/** The one manifest of this kind and name; throws when there is none or several. */
export function find(manifests: Manifest[], kind: string, name: string): Json {
  const found = manifests.filter((m) => m.object.kind === kind && m.object.metadata?.name === name);
  if (found.length !== 1) throw new Error(`expected one ${kind}/${name}, found ${found.length}`);
  return found[0]!.object;
}

/**
 * The gateway's settings as the base's ConfigMap gives them to its pods: base/gateway.env, read as
 * kustomize reads an `envs` file (KEY=VALUE lines; `#` lines and blank lines skipped).
 */
export function gatewaySettings(file = SETTINGS_FILE): Record<string, string> {
  return parseEnvFile(readFileSync(file, 'utf8'));
}

function parseEnvFile(text: string): Record<string, string> {
  const settings: Record<string, string> = {};
  for (const line of text.split('\n')) {
    if (line.trim() === '' || line.startsWith('#')) continue;
    const at = line.indexOf('=');
    if (at <= 0) throw new Error(`not KEY=VALUE: ${line}`);
    settings[line.slice(0, at)] = line.slice(at + 1);
  }
  return settings;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'generated' ? [] : sourceFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

/**
 * Every environment variable the gateway reads: each variable `loadConfig` looks up (recorded
 * by handing it an environment that notes every read), and every `process.env.NAME` or
 * `process.env['NAME']` in src/ (settings read outside the config schema, e.g. by start-up code).
 */
export function settingsTheCodeReads(): Set<string> {
  const read = new Set<string>();
  const recorder = new Proxy({} as Record<string, string | undefined>, {
    get(_target, key) {
      if (typeof key === 'string') read.add(key);
      return undefined;
    },
  });
  try {
    loadConfig(recorder);
  } catch {
    // A setting without a default refuses the empty environment; every read was recorded before that.
  }
  for (const file of sourceFiles(join(ROOT, 'src'))) {
    const text = readFileSync(file, 'utf8');
    for (const match of text.matchAll(/process\.env(?:\.([A-Z][A-Z0-9_]*)|\[\s*['"]([A-Z][A-Z0-9_]*)['"]\s*\])/g)) read.add(match[1] ?? match[2]!);
  }
  return read;
}

/**
 * A manifest's apiVersion and kind, as a path inside the kubernetes-models package, or inside
 * @kubernetes-models/prometheus-operator for the operator's resources (ServiceMonitor, PrometheusRule).
 */
function modelPath(object: Json): string {
  const { apiVersion, kind } = object ?? {};
  if (typeof apiVersion !== 'string' || !/^([a-z0-9.-]+\/)?v\d+((alpha|beta)\d+)?$/.test(apiVersion)) throw new Error(`apiVersion ${JSON.stringify(apiVersion)} is not one`);
  if (typeof kind !== 'string' || !/^[A-Z][A-Za-z0-9]*$/.test(kind)) throw new Error(`kind ${JSON.stringify(kind)} is not one`);
  const pkg = apiVersion.startsWith('monitoring.coreos.com/') ? '@kubernetes-models/prometheus-operator' : 'kubernetes-models';
  return `${pkg}/${apiVersion}/${kind}`;
}

interface ModelClass {
  apiVersion: string;
  kind: string;
  new (data: Json): { validate(): void };
}

/**
 * The kubernetes-models class of the manifest's apiVersion and kind; throws for a kind the API
 * does not serve under that version. The package carries the models of every release, removed
 * beta versions included (extensions/v1beta1, policy/v1beta1 …), so only GA versions are taken:
 * Kubernetes removes alpha and beta versions, never a GA one, so a current release serves them.
 */
export async function modelFor(object: Json): Promise<ModelClass> {
  const path = modelPath(object);
  if (!/^([a-z0-9.-]+\/)?v\d+$/.test(object.apiVersion)) throw new Error(`apiVersion ${object.apiVersion} is not a GA version: current releases may not serve it`);
  let module: Record<string, unknown>;
  try {
    module = (await import(path)) as Record<string, unknown>;
  } catch {
    throw new Error(`unknown kind: ${object.apiVersion} ${object.kind}`);
  }
  const model = module[object.kind] as ModelClass | undefined;
  // Types that are only parts of objects (Container, PodSpec) have no apiVersion of their own.
  if (typeof model !== 'function' || model.apiVersion !== object.apiVersion || model.kind !== object.kind) throw new Error(`unknown kind: ${object.apiVersion} ${object.kind}`);
  return model;
}

let previousProgram: ts.Program | undefined;
/** The package's declarations (and TypeScript's lib files), parsed once per test file. */
const parsedDeclarations = new Map<string, ts.SourceFile>();

/**
 * Fields the Kubernetes API does not know (a misspelt `imagePullPolicyy`, a field at the wrong
 * level). The package's JSON-schema validators accept any extra property, as the API server
 * does without strict field validation, so each manifest is type-checked as an object literal of
 * the package's TypeScript interface for its kind: excess-property checks reach every level.
 * Each problem names the manifest and the offending line of its JSON form.
 */
export function unknownFields(manifests: Manifest[]): string[] {
  const file = join(ROOT, 'test/deploy/__manifests__.ts');
  const lines: string[] = [];
  const owners: { from: number; manifest: Manifest; json: string[] }[] = [];
  manifests.forEach((manifest, i) => {
    const path = modelPath(manifest.object);
    lines.push(`import type { I${manifest.object.kind} as T${i} } from '${path}';`);
  });
  manifests.forEach((manifest, i) => {
    const json = JSON.stringify(manifest.object, null, 2).split('\n');
    owners.push({ from: lines.length, manifest, json });
    lines.push(`export const m${i}: T${i} = ${json[0]}`, ...json.slice(1).map((line, j) => (j === json.length - 2 ? `${line};` : line)));
  });
  const text = lines.join('\n');
  const options: ts.CompilerOptions = {
    strict: true,
    noEmit: true,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    target: ts.ScriptTarget.ES2023,
    skipLibCheck: true,
    types: [],
  };
  const host = ts.createCompilerHost(options);
  const getSourceFile = host.getSourceFile.bind(host);
  const fileExists = host.fileExists.bind(host);
  host.getSourceFile = (name, language, ...rest) => {
    if (name === file) return ts.createSourceFile(name, text, language);
    let parsed = parsedDeclarations.get(name);
    if (!parsed) {
      parsed = getSourceFile(name, language, ...rest);
      if (parsed) parsedDeclarations.set(name, parsed);
    }
    return parsed;
  };
  host.fileExists = (name) => name === file || fileExists(name);
  // A later check reuses the declarations and what the previous program resolved.
  const program = ts.createProgram([file], options, host, previousProgram);
  previousProgram = program;
  const source = program.getSourceFile(file)!;
  return ts.getPreEmitDiagnostics(program, source).map((diagnostic) => {
    const message = ts.flattenDiagnosticMessageText(diagnostic.messageText, ' ');
    if (diagnostic.start === undefined) return message;
    const line = source.getLineAndCharacterOfPosition(diagnostic.start).line;
    const owner = [...owners].reverse().find((o) => o.from <= line);
    if (!owner) return message;
    return `${describeManifest(owner.manifest)}: ${message} (at ${owner.json[line - owner.from]!.trim()})`;
  });
}

/** A Kubernetes memory quantity (`512Mi`, `1Gi`, bytes) in MiB. */
export function mebibytes(quantity: string): number {
  const match = /^(\d+(?:\.\d+)?)(Ki|Mi|Gi)?$/.exec(quantity);
  if (!match) throw new Error(`not a memory quantity this check reads: ${quantity}`);
  const factor = { Ki: 1 / 1024, Mi: 1, Gi: 1024 }[match[2] as 'Ki' | 'Mi' | 'Gi'] ?? 1 / (1024 * 1024);
  return Number(match[1]) * factor;
}

export interface DeployedGateway {
  url: string;
  /** Its admin listener (/healthz, /readyz, /metrics). */
  adminUrl: string;
  sandbox: Sandbox;
  process: GatewayProcess;
  /** The process's temporary directory (TMPDIR), the only place it may write. */
  tmp: string;
  close(): Promise<void>;
}

/**
 * The real gateway process (`node dist/main.js`, as the image runs it) with the ConfigMap's
 * settings, over an in-process sandbox. Only what cannot apply on a workstation is replaced:
 * the platform URL, the loopback addresses and free ports, and the two Redis URLs, which name
 * in-cluster Services: here they point at a port where no Redis listens, the pod's state while its
 * Redis is down.
 */
export async function startDeployedGateway(settings: Record<string, string>): Promise<DeployedGateway> {
  const sandbox = await startSandbox();
  const tmp = mkdtempSync(join(tmpdir(), 'gateway-deploy-'));
  const redisUrl = `redis://127.0.0.1:${await freePort()}`;
  const budgetRedisUrl = `redis://127.0.0.1:${await freePort()}`;
  // Both Redis URLs name in-cluster Services; here neither is reachable. The admin listener binds
  // loopback on a free port, as the public one does, so that parallel tests never meet on 9090.
  const child = startGatewayProcess({
    ...settings,
    UPSTREAM_URL: sandbox.url,
    HOST: '127.0.0.1',
    PORT: '0',
    ADMIN_HOST: '127.0.0.1',
    ADMIN_PORT: '0',
    TMPDIR: tmp,
    REDIS_URL: redisUrl,
    RATE_LIMIT_REDIS_URL: budgetRedisUrl,
  });
  try {
    const [, url] = await child.waitFor(/GraphQL endpoint: (http:\/\/127\.0\.0\.1:\d+)\/graphql/, 20_000);
    const [, adminUrl] = await child.waitFor(/^Admin \([^)]*\): (http:\/\/127\.0\.0\.1:\d+)$/m, 1_000);
    return {
      url: url!,
      adminUrl: adminUrl!,
      sandbox,
      process: child,
      tmp,
      async close() {
        await child.stop();
        await sandbox.close();
        rmSync(tmp, { recursive: true, force: true });
      },
    };
  } catch (error) {
    await child.stop();
    await sandbox.close();
    rmSync(tmp, { recursive: true, force: true });
    throw error;
  }
}
