import type { JobEvent } from '../jobs/job-types.js';
import type { LoopEvent } from '../loop/events.js';
import type { Todo } from '../tools/todo-write.js';
import type { McpEvent } from '../mcp/types.js';
import type { ImageSummary } from '../providers/image-block.js';
import type { Effort } from '../providers/types.js';

/** What a session reports, in one ordered stream: its turns, the prompt that began each, and its jobs. */
export type SessionEvent =
  | LoopEvent
  | JobEvent
  /** A user turn begins: with the user's prompt (and its images, without their data), or without one (a turn that only carries completion notices). */
  | { type: 'submit'; prompt?: string; images?: ImageSummary[] }
  /** The parent model's plan as todo_write just set it (the whole list). */
  | { type: 'todos'; todos: Todo[] }
  /** An MCP server's state changed (starting, ready with its tools, failed). */
  | McpEvent
  /** The tools the model is offered changed, from this turn on (MCP servers came up or went away). */
  | { type: 'tools_changed'; added: string[]; removed: string[] }
  /** The parent's model was switched (`/model`): its next turns run on it. */
  | { type: 'model_changed'; model: string; contextWindow: number; effort?: Effort };

/** One event of a session's stream; `seq` counts from 1 and orders turn and job events alike. */
export interface SequencedEvent {
  seq: number;
  event: SessionEvent;
}

export type SessionListener = (item: SequencedEvent) => void;

/**
 * The session's one stream of events. Turn events and job events are published here as
 * they happen, numbered in that order; every front end reads only this.
 *
 * An event that states where something stands (an MCP server's state, which changes before
 * any front end may be listening) is published with a `state` key: the latest of each key
 * is kept, and a reader that subscribes later receives those first, with their own numbers.
 */
export class EventStream {
  private seq = 0;
  private readonly listeners = new Set<SessionListener>();
  private readonly states = new Map<string, SequencedEvent>();

  publish(event: SessionEvent, options: { state?: string } = {}): void {
    this.seq += 1;
    const item = { seq: this.seq, event };
    if (options.state !== undefined) {
      // Delete first, so the map keeps the states in the order they were last published.
      this.states.delete(options.state);
      this.states.set(options.state, item);
    }
    for (const listener of this.listeners) {
      try {
        listener(item);
      } catch {
        // A front end's failure to render one event must not break the session or its other readers.
      }
    }
  }

  /** Receives the latest state events, then every event published from now on; returns the unsubscribe function. */
  subscribe(listener: SessionListener): () => void {
    for (const item of this.states.values()) {
      try {
        listener(item);
      } catch {
        // As in publish: one reader's failure stays its own.
      }
    }
    this.listeners.add(listener);
    return () => {
      this.listeners.delete(listener);
    };
  }
}
