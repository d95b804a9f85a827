// Publishes, retires and lists an app's trusted documents on a running gateway's admin listener
// (docs/web-clients.md#publishing-trusted-documents): what an app's CI runs before it deploys.
//   ADMIN_TOKEN=… npm run trust -- publish persisted-documents.json --app web
//   ADMIN_TOKEN=… npm run trust -- retire --app web
//   ADMIN_TOKEN=… npm run trust -- list
// The token is read from the environment only: a command line shows in every process list.
import { readFile } from 'node:fs/promises';
import { readCommandLine } from '../src/settings/command-line.ts';

const COMMAND = 'npm run trust';
const { values, positionals } = readCommandLine(
  {
    allowPositionals: true,
    options: {
      app: { type: 'string' },
      'admin-url': { type: 'string', default: process.env.GATEWAY_ADMIN_URL ?? 'http://127.0.0.1:9090' },
    },
  },
  {
    command: COMMAND,
    positionals: 'publish MANIFEST | retire | list',
    summary: [
      'Publishes an app\'s trusted documents to a running gateway, retires them, or lists the apps published.',
      '`publish` sends the manifest (Relay\'s map of id → document, Apollo\'s persisted-query manifest or',
      'graphql-codegen\'s persisted-documents.json) to PUT /trusted-documents/{app} on the admin listener:',
      'the gateway validates every document against its schema and stores all of them or none, and every',
      'replica serves them within a second. The admin token is read from ADMIN_TOKEN in the environment.',
      'Exit code 0 when the gateway accepted, 1 when it refused (its reason is printed), 2 on a bad command line.',
    ].join('\n'),
    options: {
      app: { text: 'the app the documents belong to (publish, retire): letters, digits, dots, dashes, underscores', value: 'NAME' },
      'admin-url': { text: 'the gateway\'s admin listener (or GATEWAY_ADMIN_URL)', value: 'URL' },
    },
    examples: [
      'ADMIN_TOKEN=$GATEWAY_ADMIN_TOKEN npm run trust -- publish src/gql/persisted-documents.json --app web   # in the app\'s CI, before it deploys',
      'ADMIN_TOKEN=$GATEWAY_ADMIN_TOKEN npm run trust -- retire --app web',
      'ADMIN_TOKEN=$GATEWAY_ADMIN_TOKEN npm run trust -- list --admin-url http://gateway-admin:9090',
    ],
  },
);

function usage(line: string): never {
  process.stderr.write(`${COMMAND}: ${line} (${COMMAND} -- --help shows how)\n`);
  process.exit(2);
}

const [action, manifest, ...extra] = positionals;
if (action !== 'publish' && action !== 'retire' && action !== 'list') usage(action === undefined ? 'say publish, retire or list' : `unknown command "${action}": publish, retire or list`);
if (extra.length > 0 || (action !== 'publish' && manifest !== undefined)) usage(`unexpected argument "${extra[0] ?? manifest}"`);
if (action === 'publish' && manifest === undefined) usage('publish needs the manifest file');
if (action !== 'list' && values.app === undefined) usage(`${action} needs --app NAME`);
const token = process.env.ADMIN_TOKEN;
if (token === undefined || token === '') usage('set ADMIN_TOKEN to the gateway\'s admin token');

let base: URL;
try {
  base = new URL(values['admin-url']);
} catch {
  usage(`--admin-url is not a URL: "${values['admin-url']}"`);
}
const url = new URL(`trusted-documents${action === 'list' ? '' : `/${encodeURIComponent(values.app!)}`}`, base.href.endsWith('/') ? base : `${base.href}/`);

let body: string | undefined;
if (action === 'publish') {
  try {
    body = await readFile(manifest!, 'utf8');
  } catch (error) {
    process.stderr.write(`${COMMAND}: cannot read ${manifest} (${(error as NodeJS.ErrnoException).code ?? 'error'})\n`);
    process.exit(1);
  }
}

let response: Response;
try {
  response = await fetch(url, {
    method: action === 'publish' ? 'PUT' : action === 'retire' ? 'DELETE' : 'GET',
    headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body,
    signal: AbortSignal.timeout(120_000),
  });
} catch (error) {
  process.stderr.write(`${COMMAND}: the admin listener at ${base.href} did not answer: ${(error as Error).cause instanceof Error ? ((error as Error).cause as Error).message : (error as Error).message}\n`);
  process.exit(1);
}
const text = await response.text();
let answer: Record<string, unknown> = {};
try {
  answer = JSON.parse(text) as Record<string, unknown>;
} catch {
  // Not the gateway's answer: shown as it came.
}
if (!response.ok) {
  process.stderr.write(`${COMMAND}: ${response.status}: ${typeof answer.error === 'string' ? answer.error : text}\n`);
  process.exit(1);
}
if (action === 'publish') process.stdout.write(`published ${String(answer.documents)} documents for app "${String(answer.app)}"\n`);
else if (action === 'retire') process.stdout.write(`retired the documents of app "${String(answer.app)}"\n`);
else {
  const apps = (answer.apps ?? []) as { name: string; documents: number; publishedAt: string; ids: string[] }[];
  if (apps.length === 0) process.stdout.write('no app has published documents\n');
  for (const app of apps) process.stdout.write(`${app.name}\t${app.documents} documents\tpublished ${app.publishedAt}\n${app.ids.map((id) => `  ${id}\n`).join('')}`);
}
