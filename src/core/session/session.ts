import { SessionLedger } from '../jobs/ledger.js';
import type { HistoryReplacement, LoopResult } from '../loop/agent-loop.js';
import type { Conversation } from '../loop/conversation.js';
import type { LoopEvent } from '../loop/events.js';
import type { Limits } from '../loop/limits.js';
import type { PromptReview, TurnParticipant } from '../loop/turn-participant.js';
import { checkImageCount, imageSummary } from '../providers/image-block.js';
import { type ImageBlock, type Message, type Usage, emptyUsage } from '../providers/types.js';
import type { Workspace } from '../tools/define.js';
import type { ToolRegistry } from '../tools/registry.js';
import { EventStream } from './event-stream.js';

export interface SessionOptions {
  id: string;
  workspace: Workspace;
  /** The parent's conversation: its byte-stable system prompt, tools and history. */
  conversation: Conversation;
  /** Who takes part in each turn, asked in this order (turn-participant.ts). */
  participants?: readonly TurnParticipant[];
  limits?: Limits;
  /** The session's token accounting; sub-agents add to it too. */
  ledger?: SessionLedger;
  /** Where the session publishes its events (the job manager publishes to the same stream). */
  events?: EventStream;
}

/** What comes with a prompt besides its text. */
export interface SubmitOptions {
  /** Images the user attached, already checked (image-block.ts); they go before the text. */
  images?: readonly ImageBlock[];
}

/**
 * The conversation the user is having, plus prompt handling: a prompt is reviewed, joins
 * the history after what opens the turn, and the conversation runs with every participant
 * asked at its moments. The parent's own usage goes to the session's ledger.
 */
export class Session {
  readonly id: string;
  readonly workspace: Workspace;
  readonly ledger: SessionLedger;
  /** The one ordered stream of the session's turn and job events. */
  readonly events: EventStream;
  readonly conversation: Conversation;
  private readonly participants: readonly TurnParticipant[];

  constructor(private readonly options: SessionOptions) {
    this.id = options.id;
    this.workspace = options.workspace;
    this.conversation = options.conversation;
    this.participants = options.participants ?? [];
    this.ledger = options.ledger ?? new SessionLedger();
    this.events = options.events ?? new EventStream();
    this.conversation.onAppend((message) => this.each((p) => p.messageAppended?.(message)));
  }

  get system(): string {
    return this.conversation.context.system;
  }

  /** The tools of the current (or next) turn; the same registry, and bytes, for a whole turn. */
  get tools(): ToolRegistry {
    return this.conversation.context.tools;
  }

  /** The live history: during a turn it already holds what the turn has added so far. */
  messages(): readonly Message[] {
    return this.conversation.messages();
  }

  /** Replaces the history (compaction); the system prompt is untouched. */
  replaceHistory(history: readonly Message[]): void {
    this.conversation.replaceHistory(history);
  }

  /** The parent's own token usage (the ledger's totals add every sub-agent). */
  usage(): Usage {
    return this.ledger.parent();
  }

  /** Tokens the last request put in the context window: what compaction watches. */
  contextTokens(): number {
    return this.conversation.contextTokens();
  }

  turns(): number {
    return this.conversation.turns();
  }

  /**
   * Runs one user turn to its end; its events go to `events`. Without a prompt the turn
   * carries only what opens it (the turn that hands over sub-agent notices).
   */
  async submit(prompt: string | undefined, signal: AbortSignal, options: SubmitOptions = {}): Promise<LoopResult> {
    const publish = (event: LoopEvent) => this.events.publish(event);
    const images = prompt === undefined ? [] : (options.images ?? []);
    checkImageCount(images.length);
    this.events.publish(
      prompt === undefined
        ? { type: 'submit' }
        : { type: 'submit', prompt, ...(images.length > 0 ? { images: images.map(imageSummary) } : {}) },
    );
    // Before anything joins the history: a blocked prompt leaves no trace, and owed notices stay owed.
    const review = prompt === undefined ? undefined : await this.reviewPrompt(prompt, signal, publish);
    if (review?.block !== undefined || (review && signal.aborted)) {
      const cause: LoopResult['cause'] = signal.aborted
        ? { kind: 'aborted' }
        : { kind: 'hook', event: 'UserPromptSubmit', reason: review.block! };
      const result: LoopResult = { newMessages: [], cause, usage: emptyUsage(), turns: 0 };
      publish({ type: 'run_end', cause });
      this.each((p) => p.turnEnd?.(result));
      return result;
    }
    this.refreshTools();
    for (const message of this.collect((p) => p.turnStart?.())) {
      this.conversation.append(message);
      publish({ type: 'injected', message });
    }
    if (prompt !== undefined) this.conversation.append(promptMessage(prompt, images, review?.context));

    const userHooks = this.participants.find((p) => p.userHooks)?.userHooks;
    // The turn runs on the model it began with, whatever /model says meanwhile.
    const model = this.conversation.model;
    const result = await this.conversation.run(
      signal,
      {
        limits: this.options.limits,
        boundaryMessages: () => this.collect((p) => p.stepBoundary?.()),
        beforeToolBatch: (calls) => this.each((p) => p.beforeToolBatch?.(calls)),
        beforeModelCall: (history, s) => this.firstReplacement((p) => p.beforeModelCall?.(history, s)),
        onContextTooLong: (history, s) => this.firstReplacement((p) => p.contextTooLong?.(history, s)),
        ...(userHooks ? { hooks: userHooks } : {}),
      },
      (event) => {
        if (event.type === 'usage') this.ledger.addParent(event.usage, model);
        publish(event);
      },
    );
    this.each((p) => p.turnEnd?.(result));
    return result;
  }

  /** Each participant that reviews prompts, in order: the first block wins, contexts add up. */
  private async reviewPrompt(
    prompt: string,
    signal: AbortSignal,
    emit: (event: LoopEvent) => void,
  ): Promise<PromptReview | undefined> {
    const reviewers = this.participants.filter((p) => p.reviewPrompt !== undefined);
    if (reviewers.length === 0) return undefined;
    const contexts: string[] = [];
    for (const participant of reviewers) {
      const review = await participant.reviewPrompt!(prompt, signal, emit);
      if (review.block !== undefined || signal.aborted) return review;
      if (review.context !== undefined) contexts.push(review.context);
    }
    return contexts.length ? { context: contexts.join('\n') } : {};
  }

  private refreshTools(): void {
    let next = this.conversation.context.tools;
    for (const participant of this.participants) next = participant.toolsForTurn?.(next) ?? next;
    const current = this.conversation.context.tools;
    if (next === current) return;
    const before = new Set(current.names());
    const after = new Set(next.names());
    this.conversation.context.tools = next;
    const added = [...after].filter((name) => !before.has(name));
    const removed = [...before].filter((name) => !after.has(name));
    if (added.length || removed.length) this.events.publish({ type: 'tools_changed', added, removed });
  }

  private each(visit: (participant: TurnParticipant) => void): void {
    for (const participant of this.participants) visit(participant);
  }

  private collect(take: (participant: TurnParticipant) => Message[] | undefined): Message[] {
    return this.participants.flatMap((participant) => take(participant) ?? []);
  }

  private async firstReplacement(
    ask: (participant: TurnParticipant) => Promise<HistoryReplacement | undefined> | undefined,
  ): Promise<HistoryReplacement | undefined> {
    for (const participant of this.participants) {
      const replacement = await ask(participant);
      if (replacement) return replacement;
    }
    return undefined;
  }
}

/** The user's prompt, its images first (where models read them best), and what a UserPromptSubmit hook added beside it. */
function promptMessage(prompt: string, images: readonly ImageBlock[], context: string | undefined): Message {
  return {
    role: 'user',
    content: [
      ...images,
      ...(prompt !== '' || images.length === 0 ? [{ type: 'text' as const, text: prompt }] : []),
      ...(context !== undefined ? [{ type: 'text' as const, text: `Context from a UserPromptSubmit hook:\n${context}` }] : []),
    ],
  };
}
