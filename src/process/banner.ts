import type { Config } from '../settings/config.ts';

/** What `npm start` prints about the embedded sandbox (plain data: the gateway imports nothing from sandbox/). */
export interface SandboxSummary {
  url: string;
  documentsUrl: string;
  /** Set when the configured ports were taken and the sandbox fell back to free ones. */
  portsTaken?: string;
  tokens: readonly { token: string; businessAccountName: string }[];
  examples: {
    financialAccountId: string;
    linxTemplate: { templateId: string; templateVersionId: string; templateVersion: number; displayName: string };
    documentsByStatus: readonly { status: string; id: string; documentType: string }[];
  };
}

/** The operations of the trusted-documents manifest (TRUSTED_DOCUMENTS), Relay's or Apollo Client's. */
export interface TrustedOperation {
  id: string;
  /** `query Name` (its type and name as written). */
  label: string;
  /** Whether it declares variables without defaults, so an example without variables would fail. */
  needsVariables: boolean;
}

/** Operations listed in the banner; a larger manifest is summed up after them. */
const LISTED_OPERATIONS = 10;

/**
 * The manifest's operations, sent by id, with one example that runs as printed. With only trusted
 * documents running, an id is all a newcomer can send: the README's text queries would all be refused.
 */
function trustedLines(endpoint: string, operations: readonly TrustedOperation[], token: string | undefined, only: boolean): string[] {
  const lines = [
    only
      ? '  Text queries (the README\'s examples, the playground) are refused here: send an operation\'s id,'
      : '  Text queries run too; a client built with the manifest sends an operation\'s id,',
    '  as documentId, Relay doc_id or Apollo extensions.persistedQuery.sha256Hash. The manifest\'s operations:',
    ...operations.slice(0, LISTED_OPERATIONS).map((operation) => `    ${operation.id}  ${operation.label}`),
  ];
  if (operations.length > LISTED_OPERATIONS) lines.push(`    … and ${operations.length - LISTED_OPERATIONS} more`);
  const example = operations.find((operation) => !operation.needsVariables);
  if (example) {
    lines.push(
      `  For example (${example.label}):`,
      `    curl -s ${endpoint} -H 'content-type: application/json' -H 'authorization: Bearer ${token ?? '<token>'}' -d '{"documentId":"${example.id}"}'`,
    );
  }
  return lines;
}

/** Where the gateway listens: its GraphQL port and, unless ADMIN_PORT=off, its admin listener. */
export interface Listeners {
  url: string;
  adminUrl: string | undefined;
}

function table(rows: [string, string][], indent = '  '): string[] {
  const width = Math.max(...rows.map(([label]) => label.length));
  return rows.map(([label, value]) => `${indent}${label.padEnd(width)}  ${value}`);
}

/**
 * The start-up banner: where to send queries, what to send them with and,
 * over the sandbox, ids to paste into the README's examples. Plain text on
 * stdout; the JSON log lines go to the same stream only once it is printed.
 */
export function startBanner(config: Config, listeners: Listeners, upstreamUrl: string, sandbox?: SandboxSummary, trusted?: readonly TrustedOperation[]): string {
  const endpoint = `${listeners.url}/graphql`;
  const lines = [`GraphQL endpoint: ${endpoint}`];
  if (config.playground) lines.push(`Playground: open ${endpoint} in a browser`);
  const served = config.metrics ? 'health, readiness, metrics' : 'health, readiness';
  lines.push(listeners.adminUrl ? `Admin (${served}): ${listeners.adminUrl}` : `Admin: off (ADMIN_PORT=off; ${served} on the GraphQL port)`);
  lines.push(sandbox ? `Platform: ${upstreamUrl} (embedded sandbox; content URLs on ${sandbox.documentsUrl})` : `Platform: ${upstreamUrl}`);
  if (sandbox?.portsTaken) lines.push(`  ${sandbox.portsTaken}`);
  const origins = [...(config.cors.allowLoopbackOrigins ? ['http://localhost:<any port>', 'http://127.0.0.1:<any port>'] : []), ...config.cors.origins];
  lines.push(`Browser apps (CORS): ${origins.length > 0 ? origins.join(', ') : 'none (set CORS_ORIGINS)'}`);
  const onlyTrusted = config.trustedDocuments?.only === true && trusted !== undefined;
  if (config.trustedDocuments) lines.push(`Trusted documents: ${config.trustedDocuments.file}${config.trustedDocuments.only ? ' (only these run)' : ''}`);
  if (trusted && trusted.length > 0) lines.push(...trustedLines(endpoint, trusted, sandbox?.tokens[0]?.token, onlyTrusted));
  if (!sandbox) return `${lines.join('\n')}\n`;

  const [first] = sandbox.tokens;
  const { examples } = sandbox;
  lines.push('', 'Demo tokens (send as "Authorization: Bearer <token>"):', ...table(sandbox.tokens.map((t) => [t.token, t.businessAccountName])));
  lines.push(
    '',
    ...(onlyTrusted
      ? [`Ids to try with ${first?.token ?? 'the first token'}, as variables of the trusted operations`, `(every seeded id: GET ${upstreamUrl}/__sandbox/fixtures):`]
      : [`Ids to try with ${first?.token ?? 'the first token'}, as shell variables for the README's examples`, `(paste them into your shell; every seeded id: GET ${upstreamUrl}/__sandbox/fixtures):`]),
    ...table(
      [
        [`ACCOUNT=${examples.financialAccountId}`, '# a Financial Account with acceptances'],
        [`TEMPLATE_ID=${examples.linxTemplate.templateId}`, `# LinX template "${examples.linxTemplate.displayName}"`],
        [`TEMPLATE_VERSION_ID=${examples.linxTemplate.templateVersionId}`, `# its version ${examples.linxTemplate.templateVersion}`],
        ...examples.documentsByStatus.map(({ status, id, documentType }): [string, string] => [`DOCUMENT_${status}=${id}`, `# ${status} ${documentType}`]),
      ],
    ),
  );
  return `${lines.join('\n')}\n`;
}
