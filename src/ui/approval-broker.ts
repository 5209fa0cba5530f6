import type { ApprovalAnswer, ApprovalRequest, Approver } from '../core/index.js';

/** One question waiting for the user. */
export interface PendingApproval {
  key: number;
  request: ApprovalRequest;
}

/**
 * Bridges the core's async approver to the UI: requests queue here (the parent's and every
 * sub-agent's), the UI shows the first and answers it from a key. A request whose signal
 * aborts (turn interrupted, job stopped) leaves the queue by itself.
 */
export class ApprovalBroker {
  private queue: readonly PendingApproval[] = [];
  private readonly resolvers = new Map<number, (answer: ApprovalAnswer) => void>();
  private readonly listeners = new Set<() => void>();
  private nextKey = 1;

  readonly approver: Approver = (request, signal) =>
    new Promise<ApprovalAnswer>((resolve) => {
      if (signal.aborted) {
        resolve('deny');
        return;
      }
      const key = this.nextKey++;
      const onAbort = () => this.settle(key, 'deny');
      signal.addEventListener('abort', onAbort, { once: true });
      this.resolvers.set(key, (answer) => {
        signal.removeEventListener('abort', onAbort);
        resolve(answer);
      });
      this.update([...this.queue, { key, request }]);
    });

  /** The waiting requests, oldest first (a stable array between changes). */
  readonly pending = (): readonly PendingApproval[] => this.queue;

  readonly subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  };

  /** False when the request was already answered or withdrawn. */
  answer(key: number, answer: ApprovalAnswer): boolean {
    return this.settle(key, answer);
  }

  /** Denies everything still waiting (the app is quitting). */
  denyAll(): void {
    for (const { key } of this.queue) this.settle(key, 'deny');
  }

  private settle(key: number, answer: ApprovalAnswer): boolean {
    const resolve = this.resolvers.get(key);
    if (!resolve) return false;
    this.resolvers.delete(key);
    this.update(this.queue.filter((entry) => entry.key !== key));
    resolve(answer);
    return true;
  }

  private update(queue: readonly PendingApproval[]): void {
    this.queue = queue;
    for (const listener of this.listeners) listener();
  }
}
