import cluster, { type Worker } from 'node:cluster';
import { AggregatorRegistry, type MetricObjectWithValues, type MetricValue, type Registry } from 'prom-client';

/**
 * /metrics of a process group (WORKERS > 1): the primary answers a scrape of the admin port itself
 * (`collect`); on the public port (development), whichever worker a scrape reaches asks the primary,
 * which gathers every running worker's registry (and its own) over the cluster's IPC channel and
 * sums them with prom-client's AggregatorRegistry.aggregate (each metric by its `aggregator`: sum
 * unless the metric says otherwise).
 *
 * prom-client's own `clusterMetrics()` is not used: it waits for every connected worker, so a
 * worker still starting (no registry yet, hence no answer) fails each scrape for 5 s. Here the
 * primary asks only workers that are listening, and a worker that exits meanwhile counts as an
 * empty answer (its series are gone with it, as after any restart). A worker that is alive but
 * does not answer fails the scrape: a sum missing one worker would read as a counter reset.
 */

const COLLECT = 'gateway:metrics-collect';
const PART = 'gateway:metrics-part';
const ASK = 'gateway:metrics-ask';
const ANSWER = 'gateway:metrics-answer';

/** Longest wait for the workers' registries (primary) and for the primary's answer (worker). */
const GROUP_METRICS_TIMEOUT_MS = 5_000;

type Metrics = MetricObjectWithValues<MetricValue<string>>[];

interface Message {
  type?: unknown;
  id?: unknown;
}

interface PartMessage {
  type: typeof PART;
  id: number;
  metrics?: Metrics;
  error?: string;
}

interface AnswerMessage {
  type: typeof ANSWER;
  id: number;
  text?: string;
  error?: string;
}

const isMessage = (value: unknown): value is Message => typeof value === 'object' && value !== null;

interface GroupMetricsMember {
  /** The aggregated metrics of the whole process group, in the Prometheus text format. */
  groupMetrics(): Promise<string>;
  /** Stops answering the primary (the registry is about to be cleared). */
  leave(): void;
}

/** In a cluster worker: hands `registry` to the primary on request, and reads the group's sum through it. */
export function joinGroupMetrics(registry: Registry): GroupMetricsMember {
  let nextId = 0;
  const waiting = new Map<number, { resolve(text: string): void; reject(error: Error): void }>();
  const onMessage = (message: unknown) => {
    if (!isMessage(message) || typeof message.id !== 'number') return;
    if (message.type === COLLECT) {
      const id = message.id;
      registry.getMetricsAsJSON().then(
        (metrics) => process.send?.({ type: PART, id, metrics } satisfies PartMessage),
        (error: unknown) => process.send?.({ type: PART, id, error: error instanceof Error ? error.message : String(error) } satisfies PartMessage),
      );
    } else if (message.type === ANSWER) {
      const answer = message as AnswerMessage;
      const request = waiting.get(answer.id);
      waiting.delete(answer.id);
      if (answer.error !== undefined || answer.text === undefined) request?.reject(new Error(answer.error ?? 'no metrics in the answer'));
      else request?.resolve(answer.text);
    }
  };
  process.on('message', onMessage);
  return {
    groupMetrics() {
      const id = nextId++;
      return new Promise<string>((resolve, reject) => {
        const timer = setTimeout(() => {
          waiting.delete(id);
          reject(new Error(`the primary process did not answer within ${GROUP_METRICS_TIMEOUT_MS} ms`));
        }, GROUP_METRICS_TIMEOUT_MS);
        waiting.set(id, {
          resolve: (text) => (clearTimeout(timer), resolve(text)),
          reject: (error) => (clearTimeout(timer), reject(error)),
        });
        process.send?.({ type: ASK, id });
      });
    },
    leave() {
      process.off('message', onMessage);
    },
  };
}

/** In the primary: answers workers' requests for the group's metrics. */
export class GroupMetricsCollector {
  private readonly own: Registry;
  private readonly members: () => Worker[];
  private nextId = 0;
  private readonly parts = new Map<string, (part: PartMessage | undefined) => void>();
  private readonly onMessage = (worker: Worker, message: unknown) => {
    if (!isMessage(message) || typeof message.id !== 'number') return;
    if (message.type === PART) this.parts.get(`${message.id}:${worker.id}`)?.(message as PartMessage);
    else if (message.type === ASK) {
      const id = message.id;
      this.collect().then(
        (text) => worker.isConnected() && worker.send({ type: ANSWER, id, text } satisfies AnswerMessage),
        (error: unknown) => worker.isConnected() && worker.send({ type: ANSWER, id, error: error instanceof Error ? error.message : String(error) } satisfies AnswerMessage),
      );
    }
  };
  private readonly onExit = (worker: Worker) => {
    for (const [key, settle] of this.parts) if (key.endsWith(`:${worker.id}`)) settle(undefined);
  };

  /**
   * @param own the primary's registry (its process metrics and the workers' supervision)
   * @param members the workers to ask: those listening
   */
  constructor(own: Registry, members: () => Worker[]) {
    this.own = own;
    this.members = members;
    cluster.on('message', this.onMessage);
    cluster.on('exit', this.onExit);
  }

  /** The group's metrics: the primary's own and every listening worker's, aggregated. */
  async collect(): Promise<string> {
    const id = this.nextId++;
    const asked = this.members().filter((worker) => worker.isConnected());
    const parts = await Promise.all(asked.map((worker) => this.partOf(worker, id)));
    const registries: Metrics[] = [await this.own.getMetricsAsJSON(), ...parts.filter((part): part is Metrics => part !== undefined)];
    return AggregatorRegistry.aggregate(registries).metrics();
  }

  close(): void {
    cluster.off('message', this.onMessage);
    cluster.off('exit', this.onExit);
  }

  /** One worker's registry; undefined when it exited before answering. */
  private partOf(worker: Worker, id: number): Promise<Metrics | undefined> {
    const key = `${id}:${worker.id}`;
    return new Promise<Metrics | undefined>((resolve, reject) => {
      const timer = setTimeout(() => settle(undefined, new Error(`worker ${worker.process.pid ?? worker.id} did not send its metrics within ${GROUP_METRICS_TIMEOUT_MS} ms`)), GROUP_METRICS_TIMEOUT_MS);
      const settle = (part: PartMessage | undefined, timeout?: Error) => {
        clearTimeout(timer);
        this.parts.delete(key);
        if (timeout) reject(timeout);
        else if (part?.error !== undefined) reject(new Error(`worker ${worker.process.pid ?? worker.id}: ${part.error}`));
        else resolve(part?.metrics);
      };
      this.parts.set(key, (part) => settle(part));
      worker.send({ type: COLLECT, id });
    });
  }
}
