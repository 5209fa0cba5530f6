import type { ToolUseBlock } from '../providers/types.js';

/**
 * The numbers of a session's jobs, each kind counting on its own: the parent's sub-agents
 * (`sub-N`, reserved in call order), background shells (`sh-N`), and each job's own
 * sub-agents (`sub-2.N`, per owner).
 */
export class JobNumbers {
  private readonly reservations = new Map<string, number>();
  private next: number;
  private nextShell = 1;
  /** The highest number each job has given its own sub-agents. */
  private readonly children = new Map<string, number>();

  constructor(first = 1) {
    this.next = first;
  }

  /**
   * Hands out numbers for every agent_start of one tool batch in the order the model wrote
   * them, before any runs. A new batch drops reservations whose call never ran.
   */
  reserve(calls: readonly ToolUseBlock[]): void {
    this.reservations.clear();
    for (const call of calls) {
      if (call.name === 'agent_start') this.reservations.set(call.id, this.next++);
    }
  }

  /** The number of a sub-agent the parent starts: its call's reservation, else the next one. */
  forStart(callId: string | undefined): number {
    const reserved = callId !== undefined ? this.reservations.get(callId) : undefined;
    if (callId !== undefined) this.reservations.delete(callId);
    return reserved ?? this.next++;
  }

  /** The number of the next sub-agent `owner` starts (`sub-2` → 2.N). */
  forChild(owner: string): number {
    const next = (this.children.get(owner) ?? 0) + 1;
    this.children.set(owner, next);
    return next;
  }

  forShell(): number {
    return this.nextShell++;
  }

  /**
   * A job of an earlier run of the session holds `id`: new jobs of its kind (and owner) are
   * numbered after it — `sub-3` moves the parent's next sub-agent to 4, `sh-2` the next
   * shell to 3, `sub-2.5` sub-2's next sub-agent to 2.6.
   */
  taken(id: string): void {
    const sub = /^(sub-\d+(?:\.\d+)*?)(?:\.(\d+))?$/.exec(id);
    const shell = /^sh-(\d+)$/.exec(id);
    if (shell) this.nextShell = Math.max(this.nextShell, Number(shell[1]) + 1);
    else if (sub?.[2] !== undefined) this.children.set(sub[1]!, Math.max(this.children.get(sub[1]!) ?? 0, Number(sub[2])));
    else if (sub) this.next = Math.max(this.next, Number(sub[1]!.slice('sub-'.length)) + 1);
  }
}
