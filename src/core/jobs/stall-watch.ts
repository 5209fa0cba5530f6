import type { LoopEvent } from '../loop/events.js';
import { type Timers, unrefTimer } from '../platform/timers.js';
import { formatDuration, oneLine } from '../platform/text.js';
import type { Message } from '../providers/types.js';
import type { JobRecord } from './job-record.js';
import type { JobTable } from './job-table.js';

/** A running sub-agent with no event for this long is named to its owner, once per stall. */
export const DEFAULT_STALL_NOTICE_MS = 5 * 60_000;

/** What the job was last seen doing: a tool call (still running or returned), or a model call. */
type LastSeen = { kind: 'tool'; name: string; label: string; open: boolean } | { kind: 'model' } | { kind: 'text' };

export interface StallWatchOptions {
  table: JobTable;
  now: () => number;
  timers: Timers;
  /** How long without an event makes a stall worth a notice. */
  afterMs: number;
}

/**
 * Running sub-agents that report nothing. Each event stamps the job's `lastEventAt` (rows show
 * `stalled 1m20s` from it); past `afterMs` without one, its owner gets one note at its next
 * step boundary, naming what the job did last, and no other until the job moves again. One
 * timer per running job, moved on lazily: it fires, finds the newer event, and waits the rest.
 */
export class StallWatch {
  private readonly handles = new Map<string, unknown>();
  private readonly seen = new Map<string, LastSeen>();
  /** Stalls already told (cleared by the job's next event). */
  private readonly told = new Set<string>();
  /** Notes not yet taken: the job and its text. */
  private readonly notes: { job: JobRecord; text: string }[] = [];
  /** Jobs waiting for the user's answer (an approval), with how many questions: not stalled meanwhile. */
  private readonly asking = new Map<string, number>();
  /** Jobs whose calls wait for a rate limit to pass (providers/rate-limit-gate.ts): not stalled either. */
  private readonly limited = new Set<string>();

  constructor(private readonly options: StallWatchOptions) {
    options.table.onFinish((job) => this.forget(job.id));
  }

  /** The job's run started (no event) or reported `event`: its stall clock starts again. */
  progressed(job: JobRecord, event?: LoopEvent): void {
    if (event) this.note(job.id, event);
    else this.seen.delete(job.id);
    this.stamp(job);
  }

  /**
   * Job `id` waits for the user's answer while `ask` runs: no stall is told meanwhile, and the
   * answer counts as progress (published, so its row stops reading stalled at once).
   */
  async whileAsking<T>(id: string, ask: () => Promise<T>): Promise<T> {
    this.asking.set(id, (this.asking.get(id) ?? 0) + 1);
    try {
      return await ask();
    } finally {
      const left = (this.asking.get(id) ?? 1) - 1;
      if (left > 0) this.asking.set(id, left);
      else this.asking.delete(id);
      const job = this.options.table.lookup(id);
      if (job?.state === 'running') {
        this.stamp(job);
        this.options.table.emitState(job);
      }
    }
  }

  private stamp(job: JobRecord): void {
    job.lastEventAt = this.options.now();
    this.told.delete(job.id);
    if (!this.handles.has(job.id)) this.arm(job, this.options.afterMs);
  }

  /** The notes of jobs still running that `isFor` picks (those whose notices go to one recipient). */
  take(isFor: (job: JobRecord) => boolean): string[] {
    const taken: string[] = [];
    for (let i = 0; i < this.notes.length;) {
      const { job, text } = this.notes[i]!;
      if (job.state !== 'running') {
        this.notes.splice(i, 1);
      } else if (isFor(job)) {
        taken.push(text);
        this.notes.splice(i, 1);
      } else {
        i += 1;
      }
    }
    return taken;
  }

  /** Those notes as one message for a step boundary, or none. */
  messages(isFor: (job: JobRecord) => boolean): Message[] {
    const texts = this.take(isFor);
    return texts.length ? [{ role: 'user', content: [{ type: 'text', text: texts.join('\n') }] }] : [];
  }

  /** Clears every timer (the session closes). */
  dispose(): void {
    for (const handle of this.handles.values()) this.options.timers.clearTimeout(handle);
    this.handles.clear();
  }

  private forget(id: string): void {
    const handle = this.handles.get(id);
    if (handle !== undefined) this.options.timers.clearTimeout(handle);
    this.handles.delete(id);
    this.seen.delete(id);
    this.told.delete(id);
    this.limited.delete(id);
  }

  private arm(job: JobRecord, ms: number): void {
    const handle = this.options.timers.setTimeout(() => this.check(job), ms);
    unrefTimer(handle);
    this.handles.set(job.id, handle);
  }

  private check(job: JobRecord): void {
    this.handles.delete(job.id);
    // A job waiting for the user's answer is armed again by the answer.
    if (job.state !== 'running' || job.lastEventAt === undefined || this.asking.has(job.id)) return;
    // Paused by a rate limit, it has not stalled: looked at again a whole interval later.
    if (this.limited.has(job.id)) {
      this.arm(job, this.options.afterMs);
      return;
    }
    const idle = this.options.now() - job.lastEventAt;
    if (idle < this.options.afterMs) {
      this.arm(job, this.options.afterMs - idle);
      return;
    }
    // Told once; the next event arms the watch again.
    if (this.told.has(job.id)) return;
    this.told.add(job.id);
    this.notes.push({ job, text: stallText(job.id, idle, this.seen.get(job.id)) });
  }

  private note(id: string, event: LoopEvent): void {
    if (event.type === 'rate_limit' && event.waiting) this.limited.add(id);
    else this.limited.delete(id);
    switch (event.type) {
      case 'tool_start':
        this.seen.set(id, { kind: 'tool', name: event.name, label: event.label, open: true });
        return;
      case 'tool_end': {
        const last = this.seen.get(id);
        if (last?.kind === 'tool') this.seen.set(id, { ...last, open: false });
        return;
      }
      case 'turn_start':
        this.seen.set(id, { kind: 'model' });
        return;
      case 'text_delta':
        this.seen.set(id, { kind: 'text' });
        return;
      default:
        return;
    }
  }
}

/** `sub-3 has made no progress for 5m00s: last a bash call (npm test), still running. …` */
export function stallText(id: string, idleMs: number, last: LastSeen | undefined): string {
  const what =
    last === undefined
      ? 'nothing since it started'
      : last.kind === 'model'
        ? 'a model call, with no reply yet'
        : last.kind === 'text'
          ? 'writing its answer'
          : `a ${last.name} call${last.label ? ` (${oneLine(last.label, 80)})` : ''}, ${last.open ? 'still running' : 'which returned'}`;
  return (
    `${id} has made no progress for ${formatDuration(idleMs)}: last ${what}. ` +
    `Call agent_stop with id ${id} to stop it, agent_send to tell it something (read at its next step), or agent_poll to wait for it.`
  );
}
