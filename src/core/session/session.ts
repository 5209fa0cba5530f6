import { SessionLedger } from '../jobs/ledger.js';
import { type LoopConfig, type LoopContext, type LoopResult, agentLoop } from '../loop/agent-loop.js';
import { drain } from '../loop/drain.js';
import type { LoopEvent } from '../loop/events.js';
import type { Limits } from '../loop/limits.js';
import type { LoopHooks } from '../loop/loop-hooks.js';
import type { ToolGate } from '../loop/tool-runner.js';
import { alternatingStream } from '../providers/alternate-roles.js';
import { type Message, type StreamFn, type Usage, emptyUsage, usageTokens } from '../providers/types.js';
import type { Workspace } from '../tools/define.js';
import type { OutputLimiter, ToolRegistry } from '../tools/registry.js';
import { EventStream } from './event-stream.js';

/** Hooks a session's owner plugs in: persistence, sub-agent delivery, compaction. */
export interface SessionHooks {
  /** Every message as it joins the history. */
  onMessage?: (message: Message) => void;
  /** Messages to add at the start of a user turn, before the user's own (pending notices). */
  turnStartMessages?: () => Message[];
  /** Messages to inject at each step boundary inside a turn. */
  boundaryMessages?: () => Message[];
  beforeToolBatch?: LoopConfig['beforeToolBatch'];
  /** Called when a turn ends, however it ended. */
  onTurnEnd?: (result: LoopResult) => void;
  onContextTooLong?: LoopConfig['onContextTooLong'];
  /** Before every model call: compaction near the context limit. */
  beforeModelCall?: LoopConfig['beforeModelCall'];
  /**
   * At the start of each user turn: the tools to offer from now on, when they changed (MCP
   * servers came up or went away). Asked only here, so the tools never change within a turn.
   */
  toolsForTurn?: (current: ToolRegistry) => ToolRegistry | undefined;
  /** The user's hooks the loop runs: PreToolUse and PostToolUse around each call, Stop at the end. */
  loopHooks?: LoopHooks;
  /**
   * UserPromptSubmit, before the prompt joins the history: `block` drops the prompt (and the
   * turn), `context` goes to the model with it.
   */
  onPrompt?: (
    prompt: string,
    signal: AbortSignal,
    emit: (event: LoopEvent) => void,
  ) => Promise<{ block?: string; context?: string }>;
}

export interface SessionOptions {
  id: string;
  workspace: Workspace;
  /** Built once; the same bytes on every request of the session. */
  system: string;
  tools: ToolRegistry;
  stream: StreamFn;
  model: string;
  maxTokens: number;
  limits?: Limits;
  gate?: ToolGate;
  limitOutput?: OutputLimiter;
  /** History to resume from. */
  history?: Message[];
  hooks?: SessionHooks;
  /** The session's token accounting; sub-agents add to it too. */
  ledger?: SessionLedger;
  /** Where the session publishes its events (the job manager publishes to the same stream). */
  events?: EventStream;
}

/**
 * The conversation the user is having: the one owner of its history (the loop appends to
 * the session's context in place), the prompt, the tools and the parent's own usage.
 */
export class Session {
  readonly id: string;
  readonly workspace: Workspace;
  readonly ledger: SessionLedger;
  /** The one ordered stream of the session's turn and job events. */
  readonly events: EventStream;
  private readonly context: LoopContext;
  private lastContextTokens = 0;
  private turnCount = 0;
  private hooks: SessionHooks;
  /** The session's provider, sent histories whose roles alternate (providers/alternate-roles.ts). */
  private readonly stream: StreamFn = alternatingStream((request, signal) => this.options.stream(request, signal));

  constructor(private readonly options: SessionOptions) {
    this.id = options.id;
    this.workspace = options.workspace;
    this.context = {
      system: options.system,
      tools: options.tools,
      workspace: options.workspace,
      messages: [...(options.history ?? [])],
    };
    this.hooks = options.hooks ?? {};
    this.ledger = options.ledger ?? new SessionLedger();
    this.events = options.events ?? new EventStream();
  }

  get system(): string {
    return this.context.system;
  }

  /** The tools of the current (or next) turn; the same registry, and bytes, for a whole turn. */
  get tools(): ToolRegistry {
    return this.context.tools;
  }

  /** Adds hooks after construction (the job manager needs the session to exist first). */
  addHooks(hooks: SessionHooks): void {
    this.hooks = { ...this.hooks, ...hooks };
  }

  /** The live history: during a turn it already holds what the turn has added so far. */
  messages(): readonly Message[] {
    return this.context.messages;
  }

  /** Replaces the history (compaction); the system prompt is untouched. */
  replaceHistory(history: readonly Message[]): void {
    this.context.messages = [...history];
  }

  /** The parent's own token usage (the ledger's totals add every sub-agent). */
  usage(): Usage {
    return this.ledger.parent();
  }

  /** Tokens the last request put in the context window: what compaction watches. */
  contextTokens(): number {
    return this.lastContextTokens;
  }

  turns(): number {
    return this.turnCount;
  }

  /**
   * Runs one user turn to its end; its events go to `events`. Without a prompt the turn
   * carries only what `turnStartMessages` gives (the turn that hands over sub-agent notices).
   */
  async submit(prompt: string | undefined, signal: AbortSignal): Promise<LoopResult> {
    const hooks = this.hooks;
    const record = (message: Message) => {
      this.context.messages.push(message);
      hooks.onMessage?.(message);
    };
    this.events.publish(prompt === undefined ? { type: 'submit' } : { type: 'submit', prompt });
    // Before anything joins the history: a blocked prompt leaves no trace, and owed notices stay owed.
    const hooked = prompt !== undefined && hooks.onPrompt !== undefined;
    const answer = hooked ? await hooks.onPrompt!(prompt!, signal, (event) => this.events.publish(event)) : {};
    if (answer.block !== undefined || (hooked && signal.aborted)) {
      const cause: LoopResult['cause'] = signal.aborted
        ? { kind: 'aborted' }
        : { kind: 'hook', event: 'UserPromptSubmit', reason: answer.block! };
      const result: LoopResult = { newMessages: [], cause, usage: emptyUsage(), turns: 0 };
      this.events.publish({ type: 'run_end', cause });
      hooks.onTurnEnd?.(result);
      return result;
    }
    this.refreshTools(hooks);
    for (const message of hooks.turnStartMessages?.() ?? []) {
      record(message);
      this.events.publish({ type: 'injected', message });
    }
    if (prompt !== undefined) {
      const context = answer.context;
      record({
        role: 'user',
        content: [
          { type: 'text', text: prompt },
          ...(context !== undefined
            ? [{ type: 'text' as const, text: `Context from a UserPromptSubmit hook:\n${context}` }]
            : []),
        ],
      });
    }

    const loop = agentLoop(
      this.context,
      {
        stream: this.stream,
        model: this.options.model,
        maxTokens: this.options.maxTokens,
        limits: this.options.limits,
        gate: this.options.gate,
        limitOutput: this.options.limitOutput,
        boundaryMessages: hooks.boundaryMessages,
        beforeToolBatch: hooks.beforeToolBatch,
        // The loop appends to the context itself; the hook only persists and confirms.
        onMessage: (message) => hooks.onMessage?.(message),
        beforeModelCall: hooks.beforeModelCall,
        onContextTooLong: hooks.onContextTooLong,
        ...(hooks.loopHooks ? { hooks: hooks.loopHooks } : {}),
      },
      signal,
    );
    const result = await drain(loop, (event) => {
      if (event.type === 'usage') {
        this.ledger.addParent(event.usage);
        const u = event.usage;
        this.lastContextTokens = usageTokens(u);
      }
      this.events.publish(event);
    });
    this.turnCount += result.turns;
    hooks.onTurnEnd?.(result);
    return result;
  }

  private refreshTools(hooks: SessionHooks): void {
    const next = hooks.toolsForTurn?.(this.context.tools);
    if (!next || next === this.context.tools) return;
    const before = new Set(this.context.tools.names());
    const after = new Set(next.names());
    this.context.tools = next;
    const added = [...after].filter((name) => !before.has(name));
    const removed = [...before].filter((name) => !after.has(name));
    if (added.length || removed.length) this.events.publish({ type: 'tools_changed', added, removed });
  }
}
