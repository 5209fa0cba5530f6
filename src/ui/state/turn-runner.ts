import type { UiSession } from '../ui-session.js';
import type { EntryBody } from './transcript.js';

/** What the parent is busy with, and the prompts typed meanwhile. */
export interface TurnSnapshot {
  /** `wake`: a turn started by itself for a sub-agent's completion (wake-on-complete). */
  busy?: 'prompt' | 'wake' | 'compact';
  queued: readonly string[];
}

export interface TurnRunnerOptions {
  session: Pick<UiSession, 'submit' | 'compact'>;
  /** Adds a line of the runner's own (a failure, compaction starting); the turn's events come from the session's stream. */
  say: (entry: EntryBody) => void;
}

type Task = { kind: 'prompt'; text: string } | { kind: 'wake' } | { kind: 'compact' };

/**
 * Runs the parent's turns one at a time: a prompt sent while a turn runs waits in the
 * queue and goes when the turn ends. What a turn does reaches the screen through the
 * session's event stream; the runner only says what the stream cannot (a turn that threw).
 */
export class TurnRunner {
  private state: TurnSnapshot = { queued: [] };
  private controller: AbortController | undefined;
  private disposed = false;
  private readonly listeners = new Set<() => void>();

  constructor(private readonly options: TurnRunnerOptions) {}

  readonly snapshot = (): TurnSnapshot => this.state;

  readonly subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  };

  /** Sends the prompt now, or queues it behind the running turn. */
  submit(text: string): void {
    if (this.disposed) return;
    if (this.state.busy) this.set({ ...this.state, queued: [...this.state.queued, text] });
    else void this.run({ kind: 'prompt', text });
  }

  /**
   * Starts a turn with no prompt, which carries only the pending completion notice;
   * false when a turn is running (its boundaries, or the next turn, deliver it instead).
   */
  wake(): boolean {
    if (this.disposed || this.state.busy) return false;
    void this.run({ kind: 'wake' });
    return true;
  }

  /** Compacts now; false when a turn is running. */
  compact(): boolean {
    if (this.disposed || this.state.busy) return false;
    void this.run({ kind: 'compact' });
    return true;
  }

  /** Aborts the running turn (sub-agents are not touched); returns the queued prompts, now dropped. */
  interrupt(): string[] {
    const queued = [...this.state.queued];
    if (queued.length) this.set({ ...this.state, queued: [] });
    this.controller?.abort(new Error('interrupted by the user'));
    return queued;
  }

  /** Aborts everything and runs nothing more (the app is quitting). */
  dispose(): void {
    this.disposed = true;
    this.controller?.abort(new Error('the app is quitting'));
  }

  private async run(task: Task): Promise<void> {
    const controller = new AbortController();
    this.controller = controller;
    this.set({ ...this.state, busy: task.kind });
    const { say } = this.options;
    try {
      if (task.kind !== 'compact') {
        await this.options.session.submit(task.kind === 'prompt' ? task.text : undefined, controller.signal);
      } else {
        say({ kind: 'info', text: 'compacting the conversation…' });
        const event = await this.options.session.compact(controller.signal);
        if (!event) say({ kind: 'info', text: 'nothing to compact yet' });
      }
    } catch (error) {
      const what = task.kind === 'compact' ? 'compaction' : 'the turn';
      const text = controller.signal.aborted ? `${what} was interrupted` : `${what} failed: ${describe(error)}`;
      if (!this.disposed) say(controller.signal.aborted ? { kind: 'info', text } : { kind: 'error', text });
    } finally {
      this.controller = undefined;
    }
    if (this.disposed) return;
    const [next, ...rest] = this.state.queued;
    this.set({ queued: rest });
    if (next !== undefined) void this.run({ kind: 'prompt', text: next });
  }

  private set(state: TurnSnapshot): void {
    this.state = state;
    for (const listener of this.listeners) listener();
  }
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
