// Monaco runs its language services in web workers. GraphiQL's default setup
// imports them from a CDN; the playground must work offline and must not send
// the schema anywhere, so the workers are bundled next to the page instead.

const WORKERS: Record<string, string> = {
  json: 'json.worker.js',
  graphql: 'graphql.worker.js',
};

/** Points Monaco at the worker files built into `<assetsPath>workers/`. */
export function useLocalMonacoWorkers(assetsPath: string): void {
  const base = new URL(`${assetsPath}workers/`, window.location.href);
  (globalThis as { MonacoEnvironment?: unknown }).MonacoEnvironment = {
    getWorker(_workerId: string, label: string): Worker {
      return new Worker(new URL(WORKERS[label] ?? 'editor.worker.js', base), { name: label });
    },
  };
}
