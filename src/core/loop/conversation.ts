import { alternatingStream } from '../providers/alternate-roles.js';
import { withEffort } from '../providers/effort.js';
import { type Effort, type Message, type StreamFn, type Usage, addUsage, emptyUsage, usageTokens } from '../providers/types.js';
import type { OutputLimiter } from '../tools/registry.js';
import { type LoopConfig, type LoopContext, type LoopResult, agentLoop } from './agent-loop.js';
import { drain } from './drain.js';
import type { LoopEvent } from './events.js';
import type { ToolGate } from './tool-runner.js';

/** What stays the same for every run of one conversation. */
export interface ConversationOptions {
  stream: StreamFn;
  model: string;
  maxTokens: number;
  /** Reasoning effort sent with every request of a run (where the model takes one). */
  effort?: Effort;
  gate?: ToolGate;
  limitOutput?: OutputLimiter;
  /** The sub-agent job this conversation is (its tools' `ToolContext.jobId`); undefined for the parent. */
  jobId?: string;
  now?: () => number;
}

/** What one run adds to the conversation's own configuration: its limits and the moments it is asked about. */
export type RunOptions = Omit<LoopConfig, keyof ConversationOptions | 'onMessage'>;

/** What `/model` changes of a conversation, from its next run on. */
export type ModelOptions = Pick<ConversationOptions, 'model' | 'maxTokens' | 'effort'>;

/**
 * One conversation with a model: its context (system prompt, tools, history) and the loop
 * configuration it runs with. The one place that appends to the history and counts what
 * runs cost: usage, turns, and the context the last request filled. The parent's session
 * and each sub-agent's run are a conversation plus what is theirs (prompts; limits and nudges).
 */
export class Conversation {
  private spent: Usage = emptyUsage();
  private turnCount = 0;
  private lastContextTokens = 0;
  /** The model of the run under way, which a /model switch meanwhile does not change. */
  private running: ModelOptions | undefined;
  /** Told of each message as it joins the history, whoever added it (transcripts, delivery confirmations). */
  private readonly listeners: ((message: Message) => void)[] = [];
  /** Requests whose histories alternate roles, whatever was appended (providers/alternate-roles.ts). */
  private readonly stream: StreamFn;

  constructor(
    readonly context: LoopContext,
    private options: ConversationOptions,
  ) {
    this.stream = alternatingStream((request, signal) => this.options.stream(request, signal));
  }

  /** The model the next run calls (a run under way keeps the one it began with). */
  get model(): string {
    return this.options.model;
  }

  /** The model and answer cap calls are made with now: the running run's, else the next run's. */
  target(): ModelOptions {
    return this.running ?? { model: this.options.model, maxTokens: this.options.maxTokens };
  }

  /** Moves the conversation to another model (and effort) from its next run on: `/model`. */
  retarget(options: ModelOptions): void {
    const { effort, ...rest } = options;
    const { effort: _previous, ...kept } = this.options;
    this.options = { ...kept, ...rest, ...(effort ? { effort } : {}) };
  }

  /** The live history: during a run it already holds what the run has added so far. */
  messages(): readonly Message[] {
    return this.context.messages;
  }

  /** Tells `listener` of every message that joins the history from now on. */
  onAppend(listener: (message: Message) => void): void {
    this.listeners.push(listener);
  }

  /** A message from outside the loop (a prompt, a notice, a nudge) joins the history. */
  append(message: Message): void {
    this.context.messages.push(message);
    this.appended(message);
  }

  private appended(message: Message): void {
    for (const listener of this.listeners) listener(message);
  }

  /** Replaces the history (compaction, /rewind); the system prompt is untouched. */
  replaceHistory(history: readonly Message[]): void {
    this.context.messages = [...history];
    // The last request's figure told of the old history: until the next one, compaction estimates.
    this.lastContextTokens = 0;
  }

  usage(): Usage {
    return { ...this.spent };
  }

  turns(): number {
    return this.turnCount;
  }

  /** Tokens the last request put in the context window: what compaction watches. */
  contextTokens(): number {
    return this.lastContextTokens;
  }

  /** Runs the loop on this conversation until it stops; every event goes to `onEvent`. */
  async run(signal: AbortSignal, options: RunOptions, onEvent: (event: LoopEvent) => void): Promise<LoopResult> {
    const { effort, ...own } = this.options;
    this.running = { model: own.model, maxTokens: own.maxTokens };
    const config: LoopConfig = {
      ...own,
      ...options,
      stream: withEffort(this.stream, effort),
      // The loop appends to the context itself; this only tells whoever listens.
      onMessage: (message) => this.appended(message),
    };
    try {
      const result = await drain(agentLoop(this.context, config, signal), (event) => {
        if (event.type === 'usage') {
          this.spent = addUsage(this.spent, event.usage);
          this.lastContextTokens = usageTokens(event.usage);
        }
        onEvent(event);
      });
      this.turnCount += result.turns;
      return result;
    } finally {
      this.running = undefined;
    }
  }
}
