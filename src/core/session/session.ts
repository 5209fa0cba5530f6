import { SessionLedger } from '../agents/ledger.js';
import { type LoopConfig, type LoopResult, agentLoop } from '../loop/agent-loop.js';
import type { AgentEvent } from '../loop/events.js';
import type { Limits } from '../loop/limits.js';
import type { ToolGate } from '../loop/tool-runner.js';
import type { Message, StreamFn, Usage } from '../providers/types.js';
import type { Workspace } from '../tools/define.js';
import type { OutputLimiter, ToolRegistry } from '../tools/registry.js';

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
}

/** The conversation the user is having: history, prompt, tools and the parent's own usage. */
export class Session {
  readonly id: string;
  readonly system: string;
  readonly tools: ToolRegistry;
  readonly workspace: Workspace;
  readonly ledger: SessionLedger;
  private history: Message[];
  private lastContextTokens = 0;
  private turnCount = 0;
  private hooks: SessionHooks;

  constructor(private readonly options: SessionOptions) {
    this.id = options.id;
    this.system = options.system;
    this.tools = options.tools;
    this.workspace = options.workspace;
    this.history = [...(options.history ?? [])];
    this.hooks = options.hooks ?? {};
    this.ledger = options.ledger ?? new SessionLedger();
  }

  /** Adds hooks after construction (the job manager needs the session to exist first). */
  addHooks(hooks: SessionHooks): void {
    this.hooks = { ...this.hooks, ...hooks };
  }

  messages(): readonly Message[] {
    return this.history;
  }

  /** Replaces the history (compaction); the system prompt is untouched. */
  replaceHistory(history: Message[]): void {
    this.history = [...history];
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
   * Runs one user turn to its end, yielding every event. Without a prompt the turn carries
   * only what `turnStartMessages` gives (headless mode's last turn for sub-agent notices).
   */
  async *submit(prompt: string | undefined, signal: AbortSignal): AsyncGenerator<AgentEvent, LoopResult> {
    const hooks = this.hooks;
    // `history` stays live during the turn, so a fork started mid-turn sees the parent's exact prefix.
    const record = (message: Message) => {
      this.history.push(message);
      hooks.onMessage?.(message);
    };
    for (const message of hooks.turnStartMessages?.() ?? []) {
      record(message);
      yield { type: 'injected', message };
    }
    if (prompt !== undefined) record({ role: 'user', content: [{ type: 'text', text: prompt }] });

    // A replaced history (compaction) becomes the session's too, so it stays live.
    const adopt =
      (hook: LoopConfig['beforeModelCall']): LoopConfig['beforeModelCall'] =>
      hook &&
      (async (history, abort) => {
        const replacement = await hook(history, abort);
        if (replacement) this.history = [...replacement.history];
        return replacement;
      });
    const loop = agentLoop(
      this.history,
      { system: this.system, tools: this.tools, workspace: this.workspace },
      {
        stream: this.options.stream,
        model: this.options.model,
        maxTokens: this.options.maxTokens,
        limits: this.options.limits,
        gate: this.options.gate,
        limitOutput: this.options.limitOutput,
        boundaryMessages: hooks.boundaryMessages,
        beforeToolBatch: hooks.beforeToolBatch,
        onMessage: record,
        beforeModelCall: adopt(hooks.beforeModelCall),
        onContextTooLong: adopt(hooks.onContextTooLong),
      },
      signal,
    );
    let next = await loop.next();
    while (!next.done) {
      const event = next.value;
      if (event.type === 'usage') {
        this.ledger.addParent(event.usage);
        const u = event.usage;
        this.lastContextTokens = u.input + u.cacheRead + u.cacheWrite + u.output;
      }
      yield event;
      next = await loop.next();
    }
    const result = next.value;
    this.history = result.history;
    this.turnCount += result.turns;
    hooks.onTurnEnd?.(result);
    return result;
  }
}
