import type { Cluster, Worker } from 'node:cluster';
import { Asks } from '../shared-state/asks.ts';
import { MemoryBuckets, type BucketPolicy, type BucketState, type BucketStore } from './bucket.ts';

/**
 * Buckets of a process group (WORKERS > 1) without Redis: the primary keeps them for every worker,
 * over node:cluster's IPC, so a caller has one budget per instance, not one per worker. A primary
 * that does not answer within the store timeout leaves the request to the worker's own memory.
 */
interface BudgetRequest {
  budget: 'take' | 'adjust';
  id: number;
  policy: BucketPolicy;
  key: string;
  cost: number;
  /** Past this instant (the machine's clock, shared by the group) the primary does nothing: the worker has counted it alone. */
  deadline: number;
}

interface BudgetReply {
  budgetReply: number;
  state: BucketState;
}

function isBudgetRequest(message: unknown): message is BudgetRequest {
  return typeof message === 'object' && message !== null && ((message as BudgetRequest).budget === 'take' || (message as BudgetRequest).budget === 'adjust');
}

function isBudgetReply(message: unknown): message is BudgetReply {
  return typeof message === 'object' && message !== null && typeof (message as BudgetReply).budgetReply === 'number';
}

/** The primary's side: answers every worker's bucket operations from one store (called in src/process/cluster.ts). */
export function serveBudgetsToWorkers(cluster: Cluster, maxKeys: number): void {
  const buckets = new MemoryBuckets(maxKeys);
  cluster.on('message', (worker: Worker, message: unknown) => {
    if (!isBudgetRequest(message) || Date.now() > message.deadline) return;
    const state = message.budget === 'take' ? buckets.takeNow(message.policy, message.key, message.cost) : buckets.adjustNow(message.policy, message.key, message.cost);
    if (worker.isConnected()) worker.send({ budgetReply: message.id, state } satisfies BudgetReply);
  });
}

/** A worker's side. */
export class WorkerGroupBuckets implements BucketStore {
  readonly #alone: MemoryBuckets;
  readonly #timeoutMs: number;
  readonly #asks = new Asks<BucketState>();
  readonly #onFailure: () => void;
  readonly #listener = (message: unknown) => {
    if (isBudgetReply(message)) this.#asks.answer(message.budgetReply, message.state);
  };

  constructor(alone: MemoryBuckets, timeoutMs: number, onFailure: () => void) {
    this.#alone = alone;
    this.#timeoutMs = timeoutMs;
    this.#onFailure = onFailure;
    process.on('message', this.#listener);
  }

  take(policy: BucketPolicy, key: string, cost: number): Promise<BucketState> {
    return this.#ask({ budget: 'take', id: 0, policy, key, cost, deadline: 0 }, () => this.#alone.takeNow(policy, key, cost));
  }

  adjust(policy: BucketPolicy, key: string, delta: number): Promise<BucketState> {
    return this.#ask({ budget: 'adjust', id: 0, policy, key, cost: delta, deadline: 0 }, () => this.#alone.adjustNow(policy, key, delta));
  }

  async close(): Promise<void> {
    process.off('message', this.#listener);
  }

  #ask(request: BudgetRequest, alone: () => BucketState): Promise<BucketState> {
    if (!process.connected || process.send === undefined) return Promise.resolve(alone());
    return this.#asks.ask((id) => process.send!({ ...request, id, deadline: Date.now() + this.#timeoutMs / 2 }), this.#timeoutMs, () => {
      // The primary drops the request once its deadline has passed, so it is counted here alone, never twice.
      this.#onFailure();
      return alone();
    });
  }
}
