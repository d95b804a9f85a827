import cluster, { type Worker } from 'node:cluster';
import { Asks } from '../shared-state/asks.ts';
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
  const answers = new Asks<{ text?: string; error?: string }>();
  const onMessage = (message: unknown) => {
    if (!isMessage(message) || typeof message.id !== 'number') return;
    if (message.type === COLLECT) {
      const id = message.id;
      registry.getMetricsAsJSON().then(
        (metrics) => process.send?.({ type: PART, id, metrics } satisfies PartMessage),
        (error: unknown) => process.send?.({ type: PART, id, error: error instanceof Error ? error.message : String(error) } satisfies PartMessage),
      );
    } else if (message.type === ANSWER) {
      answers.answer(message.id, message as AnswerMessage);
    }
  };
  process.on('message', onMessage);
  return {
    async groupMetrics() {
      const answer = await answers.ask((id) => process.send?.({ type: ASK, id }), GROUP_METRICS_TIMEOUT_MS, () => ({ error: `the primary process did not answer within ${GROUP_METRICS_TIMEOUT_MS} ms` }));
      if (answer.error !== undefined || answer.text === undefined) throw new Error(answer.error ?? 'no metrics in the answer');
      return answer.text;
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
  /** Each worker's part: its message, `exited` when it exited first, or `late`. */
  private readonly parts = new Asks<PartMessage | 'exited' | 'late'>();
  /** The worker each part was asked of, by the ask's id. */
  private readonly askedOf = new Map<number, number>();
  private readonly onMessage = (worker: Worker, message: unknown) => {
    if (!isMessage(message) || typeof message.id !== 'number') return;
    if (message.type === PART) {
      if (this.askedOf.get(message.id) === worker.id) this.parts.answer(message.id, message as PartMessage);
    }
    else if (message.type === ASK) {
      const id = message.id;
      this.collect().then(
        (text) => worker.isConnected() && worker.send({ type: ANSWER, id, text } satisfies AnswerMessage),
        (error: unknown) => worker.isConnected() && worker.send({ type: ANSWER, id, error: error instanceof Error ? error.message : String(error) } satisfies AnswerMessage),
      );
    }
  };
  private readonly onExit = (worker: Worker) => {
    for (const [id, asked] of this.askedOf) if (asked === worker.id) this.parts.answer(id, 'exited');
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
    const asked = this.members().filter((worker) => worker.isConnected());
    const parts = await Promise.all(asked.map((worker) => this.partOf(worker)));
    const registries: Metrics[] = [await this.own.getMetricsAsJSON(), ...parts.filter((part): part is Metrics => part !== undefined)];
    return AggregatorRegistry.aggregate(registries).metrics();
  }

  close(): void {
    cluster.off('message', this.onMessage);
    cluster.off('exit', this.onExit);
  }

  /** One worker's registry; undefined when it exited before answering. */
  private async partOf(worker: Worker): Promise<Metrics | undefined> {
    let asked = -1;
    const part = await this.parts.ask((id) => {
      this.askedOf.set((asked = id), worker.id);
      worker.send({ type: COLLECT, id });
    }, GROUP_METRICS_TIMEOUT_MS, () => 'late');
    this.askedOf.delete(asked);
    if (part === 'exited') return undefined;
    if (part === 'late') throw new Error(`worker ${worker.process.pid ?? worker.id} did not send its metrics within ${GROUP_METRICS_TIMEOUT_MS} ms`);
    if (part.error !== undefined) throw new Error(`worker ${worker.process.pid ?? worker.id}: ${part.error}`);
    return part.metrics;
  }
}
