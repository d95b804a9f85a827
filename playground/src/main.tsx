import { GraphiQL } from 'graphiql';
import 'graphiql/style.css';
import { GraphQLError, Kind, OperationTypeNode, parse, type OperationDefinitionNode } from 'graphql';
import { createClient } from 'graphql-sse';
import type { ComponentProps } from 'react';
import { createRoot } from 'react-dom/client';
import type { PlaygroundPageConfig } from '../../src/playground/page-config.ts';
import { useLocalMonacoWorkers } from './monaco-workers.ts';
import './playground.css';

type Fetcher = ComponentProps<typeof GraphiQL>['fetcher'];

function readConfig(): PlaygroundPageConfig {
  const element = document.getElementById('playground-config');
  if (!element?.textContent) throw new Error('The page carries no playground configuration');
  return JSON.parse(element.textContent) as PlaygroundPageConfig;
}

/**
 * The operation to run, its name as the request carries it, and whether it is a subscription.
 * GraphiQL reads the operation's name from the editor 100 ms after an edit (a new tab keeps the
 * previous tab's meanwhile), so a run right after pasting can carry a name the document does not
 * have: a document of one operation then runs that one, as the editor shows it. A document that does
 * not parse, or a name matching none of several operations, is left to the gateway's answer.
 */
function operationToRun(query: string, operationName: string | null | undefined): { operationName: string | null | undefined; subscription: boolean } {
  let operations: OperationDefinitionNode[];
  try {
    operations = parse(query).definitions.filter((definition) => definition.kind === Kind.OPERATION_DEFINITION);
  } catch {
    return { operationName, subscription: false };
  }
  const operation = operations.find((candidate) => operationName && candidate.name?.value === operationName) ?? (operations.length === 1 ? operations[0] : undefined);
  if (operation === undefined) return { operationName, subscription: false };
  return { operationName: operation.name?.value, subscription: operation.operation === OperationTypeNode.SUBSCRIPTION };
}

/**
 * A plain JSON POST per query or mutation (a POST with a JSON body passes the gateway's CSRF
 * prevention); a subscription over GraphQL over SSE (graphql-sse's client, distinct connections),
 * each event shown as it arrives, with the headers of the headers editor.
 */
function createFetcher(endpoint: string): Fetcher {
  const url = new URL(endpoint, window.location.href).toString();
  return async (graphiqlParams, options) => {
    const { operationName, subscription } = operationToRun(graphiqlParams.query, graphiqlParams.operationName);
    const params = { ...graphiqlParams, operationName };
    if (subscription) {
      const headers = (options?.headers ?? {}) as Record<string, string>;
      return createClient({ url, headers, retryAttempts: 0 }).iterate(params as { query: string });
    }
    const response = await fetch(url, {
      method: 'POST',
      headers: { accept: 'application/graphql-response+json, application/json', ...options?.headers, 'content-type': 'application/json' },
      body: JSON.stringify(params),
    });
    const text = await response.text();
    try {
      return JSON.parse(text) as Awaited<ReturnType<Fetcher>>;
    } catch {
      // A proxy or the platform's HTML error page: show what arrived instead of a parse failure.
      return { errors: [new GraphQLError(`HTTP ${response.status}: ${text.slice(0, 500)}`)] };
    }
  };
}

const config = readConfig();
useLocalMonacoWorkers(config.assetsPath);

// GraphiQL 5 opens the first default tab with its query but without its
// variables; hand them over explicitly, but only on a first visit: once tabs are
// stored, GraphiQL restores them (variables included) by itself.
const firstVisit = window.localStorage.getItem('graphiql:tabState') === null;

createRoot(document.getElementById('playground')!).render(
  <GraphiQL
    fetcher={createFetcher(config.endpoint)}
    defaultTabs={config.tabs}
    initialVariables={firstVisit ? config.tabs[0]?.variables : undefined}
    defaultHeaders={config.defaultHeaders}
    shouldPersistHeaders={config.persistHeaders}
    defaultEditorToolsVisibility={true}
  />,
);
