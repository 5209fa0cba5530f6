/**
 * Which finished jobs the parent model still has to hear about. The promise it keeps:
 * every job that ends done or error reaches the model exactly once, either through a
 * poll that returned its result or through one notice; never both, never twice.
 */
export class DeliveryTracker {
  /** Ended done/error, not yet announced nor claimed by a poll. */
  private readonly pending = new Set<string>();
  /** Named in a notice that was handed out but not yet confirmed as sent. */
  private readonly inFlight = new Set<string>();
  /** How many polls wait on each id right now. */
  private readonly waiting = new Map<string, number>();
  /** Announced, or returned by a poll: settled for good. */
  private readonly settled = new Set<string>();

  /** A job ended done or error: it now needs delivering. */
  ended(id: string): void {
    if (!this.settled.has(id)) this.pending.add(id);
  }

  /** A poll starts waiting on `id`: notices leave it out meanwhile. */
  pollStarted(id: string): void {
    this.waiting.set(id, (this.waiting.get(id) ?? 0) + 1);
  }

  /** A poll stops waiting; `claimed` when it returned the job's result to the model. True when that settled it. */
  pollEnded(id: string, claimed: boolean): boolean {
    const left = (this.waiting.get(id) ?? 1) - 1;
    if (left > 0) this.waiting.set(id, left);
    else this.waiting.delete(id);
    return claimed && this.claim(id);
  }

  /** A poll returned the result of a job that had already ended; true when that settled it. */
  claim(id: string): boolean {
    this.pending.delete(id);
    this.inFlight.delete(id);
    if (this.settled.has(id)) return false;
    this.settled.add(id);
    return true;
  }

  /**
   * Ids to announce now, oldest first; they stay in flight until `confirm` or `interrupted`.
   * `include` keeps those of one recipient (the parent, or the job that started them).
   */
  takeBatch(order: (a: string, b: string) => number, include: (id: string) => boolean = () => true): string[] {
    const batch = [...this.pending].filter((id) => !this.waiting.has(id) && include(id)).sort(order);
    for (const id of batch) {
      this.pending.delete(id);
      this.inFlight.add(id);
    }
    return batch;
  }

  /** The notice naming `ids` joined the parent's history; returns the ids this settled. */
  confirm(ids: readonly string[]): string[] {
    const confirmed: string[] = [];
    for (const id of ids) {
      if (!this.inFlight.delete(id)) continue;
      this.settled.add(id);
      confirmed.push(id);
    }
    return confirmed;
  }

  /** The parent turn was interrupted: notices handed out but not sent go back to pending. */
  interrupted(include: (id: string) => boolean = () => true): void {
    for (const id of [...this.inFlight].filter(include)) {
      this.pending.add(id);
      this.inFlight.delete(id);
    }
  }

  /** A job runs again (resumed by a message): its next end owes a delivery of its own. */
  reopen(id: string): void {
    this.pending.delete(id);
    this.inFlight.delete(id);
    this.settled.delete(id);
  }

  /** Ids still owed to the model (pending or in flight). */
  owed(): string[] {
    return [...this.pending, ...this.inFlight];
  }

  isSettled(id: string): boolean {
    return this.settled.has(id);
  }
}
