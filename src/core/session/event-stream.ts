import type { JobEvent } from '../agents/job-types.js';
import type { LoopEvent } from '../loop/events.js';
import type { Todo } from '../tools/todo-write.js';

/** What a session reports, in one ordered stream: its turns, the prompt that began each, and its jobs. */
export type SessionEvent =
  | LoopEvent
  | JobEvent
  /** A user turn begins: with the user's prompt, or without one (a turn that only carries completion notices). */
  | { type: 'submit'; prompt?: string }
  /** The parent model's plan as todo_write just set it (the whole list). */
  | { type: 'todos'; todos: Todo[] };

/** One event of a session's stream; `seq` counts from 1 and orders turn and job events alike. */
export interface SequencedEvent {
  seq: number;
  event: SessionEvent;
}

export type SessionListener = (item: SequencedEvent) => void;

/**
 * The session's one stream of events. Turn events and job events are published here as
 * they happen, numbered in that order; every front end reads only this.
 */
export class EventStream {
  private seq = 0;
  private readonly listeners = new Set<SessionListener>();

  publish(event: SessionEvent): void {
    this.seq += 1;
    const item = { seq: this.seq, event };
    for (const listener of this.listeners) {
      try {
        listener(item);
      } catch {
        // A front end's failure to render one event must not break the session or its other readers.
      }
    }
  }

  /** Receives every event published from now on; returns the unsubscribe function. */
  subscribe(listener: SessionListener): () => void {
    this.listeners.add(listener);
    return () => {
      this.listeners.delete(listener);
    };
  }
}
