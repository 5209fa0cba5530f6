import { type HookPermissionHint, withHookHint } from './hook-decision.js';
import { commandOf, decide } from './policy.js';
import { PermissionRules, applyRules } from './rule-match.js';
import type { Approver, Decision, PermissionMode, PermissionPrompt, PermissionRequest } from './types.js';
import { untilAborted } from '../platform/until-aborted.js';

/** A tool call submitted to the gate: the policy's view plus what the user is shown. */
export interface GateRequest extends PermissionRequest {
  /** Short description for the approval prompt, e.g. the file path or the command. */
  label: string;
  /** Set when a sub-agent makes the call, so the prompt says which job asks. */
  jobId?: string;
  /** A PreToolUse hook's `allow` or `ask` (withHookHint says what it may change). */
  hook?: HookPermissionHint;
  /** The model's id for the call (`tool_use_id`), for a permission prompt and the denials list. */
  callId?: string;
}

/** A call the gate refused: by a rule, the mode, the user, or because no one could be asked. */
export interface PermissionDenial {
  toolName: string;
  callId?: string;
  args: unknown;
  jobId?: string;
  message: string;
}

/**
 * The gate's answer; `message` is what the model reads as the tool result. `sandbox` is set
 * when no one approved the call and it rests on the read-only judgement alone.
 */
export type GateResult = { allowed: true; sandbox?: 'read-only'; args?: unknown } | { allowed: false; message: string };

export interface ApprovalGateOptions {
  mode: PermissionMode;
  /** Asks the user; absent in headless mode. */
  approver?: Approver;
  /** No one is at the terminal: every "ask" becomes a denial naming the flag that allows it. */
  headless: boolean;
  /**
   * The permission rules (settings `permissions.allow/ask/deny`, `--allowedTools`,
   * `--disallowedTools`): a deny rule always wins, an ask rule asks every time, an allow rule
   * is an "allow always" given in advance (rule-match.ts).
   */
  rules?: PermissionRules;
  /** Tool names and patterns allowed without asking, when no `rules` are given (tests, child gates). */
  allow?: readonly string[];
  /** Told whenever a call needs someone's answer, whoever gives it (headless: the Notification hooks). */
  onAsk?: (request: { toolName: string; jobId?: string }) => void;
}

/**
 * One session's permission gate: applies the policy, asks the user when it says so, and
 * remembers "allow always" answers for the rest of the session.
 */
export class ApprovalGate {
  private currentMode: PermissionMode;
  private readonly approver: Approver | undefined;
  private readonly headless: boolean;
  /** Tools the user allowed for the session; bash is remembered per command instead. */
  private readonly alwaysTools = new Set<string>();
  private readonly alwaysCommands = new Set<string>();
  /** The session's rules (settings and flags). */
  readonly rules: PermissionRules;
  /** Allowed while something runs (a custom command's `allowed-tools`, for its turn). */
  private readonly allowedFor = new Set<PermissionRules>();
  /** Asks a program instead of a person (`--permission-prompt-tool stdio`: the SDK's canUseTool). */
  private prompt: PermissionPrompt | undefined;
  private readonly deniedListeners = new Set<(denial: PermissionDenial) => void>();
  private readonly onAsk: ApprovalGateOptions['onAsk'];

  constructor(options: ApprovalGateOptions) {
    this.onAsk = options.onAsk;
    this.currentMode = options.mode;
    this.approver = options.approver;
    this.headless = options.headless;
    this.rules = options.rules ?? new PermissionRules({ allow: options.allow ?? [] }, { roots: [] });
  }

  /**
   * Runs `run` with `rules` (Claude Code's grammar: `Bash(git add:*)`, tool names, patterns)
   * answering "ask" in advance, like `permissions.allow`, until it settles: what asks every
   * time, and what the policy or a deny rule refuses, is untouched.
   */
  async allowWhile<T>(rules: readonly string[], run: () => Promise<T>): Promise<T> {
    if (rules.length === 0) return run();
    const temporary = new PermissionRules({ allow: rules }, this.rules.context);
    this.allowedFor.add(temporary);
    try {
      return await run();
    } finally {
      this.allowedFor.delete(temporary);
    }
  }

  private allowedNow(request: GateRequest): boolean {
    for (const rules of this.allowedFor) if (rules.allowed(request)) return true;
    return false;
  }

  /** Sends every question to `prompt` from now on (a program answering for the user); undefined goes back. */
  usePrompt(prompt: PermissionPrompt | undefined): void {
    this.prompt = prompt;
  }

  /** Calls `listener` with every call the gate refuses; returns the unsubscribe. */
  onDenied(listener: (denial: PermissionDenial) => void): () => void {
    this.deniedListeners.add(listener);
    return () => this.deniedListeners.delete(listener);
  }

  /** The policy's decision with the session's rules applied (a child's gate judges in its own mode, with these rules). */
  withRules(decision: Decision, request: PermissionRequest): Decision {
    return applyRules(decision, request, this.rules);
  }

  get mode(): PermissionMode {
    return this.currentMode;
  }

  setMode(mode: PermissionMode): void {
    this.currentMode = mode;
  }

  async check(request: GateRequest, signal: AbortSignal): Promise<GateResult> {
    const result = await this.judge(request, signal);
    if (!result.allowed) {
      const { toolName, callId, args, jobId } = request;
      const denial = { toolName, args, message: result.message, ...(callId ? { callId } : {}), ...(jobId ? { jobId } : {}) };
      for (const listener of this.deniedListeners) listener(denial);
    }
    return result;
  }

  private async judge(request: GateRequest, signal: AbortSignal): Promise<GateResult> {
    const decision = withHookHint(this.withRules(decide(this.currentMode, request), request), request.hook);
    if (decision.decision === 'allow') return decision.sandbox ? { allowed: true, sandbox: decision.sandbox } : { allowed: true };
    if (decision.decision === 'deny') return { allowed: false, message: decision.reason };
    const sticky = !decision.askEveryTime;
    if (sticky && (this.isAlwaysAllowed(request) || this.allowedNow(request))) return { allowed: true };

    const { toolName, label, args, jobId, callId } = request;
    this.onAsk?.({ toolName, ...(jobId ? { jobId } : {}) });
    if (this.prompt) {
      signal.throwIfAborted();
      const answer = await untilAborted(
        this.prompt(
          { toolName, label, args, reason: decision.reason, ...(jobId ? { jobId } : {}), ...(callId ? { callId } : {}) },
          signal,
        ),
        signal,
      );
      if (answer.behavior === 'allow')
        return answer.updatedInput !== undefined ? { allowed: true, args: answer.updatedInput } : { allowed: true };
      return { allowed: false, message: answer.message || `Permission to use ${toolName} was denied.` };
    }

    if (!this.approver || this.headless) {
      return { allowed: false, message: this.noOneToAsk(request, sticky ? undefined : decision.reason) };
    }

    signal.throwIfAborted();
    const answer = await untilAborted(
      this.approver(
        { toolName, label, args, reason: decision.reason, ...(jobId ? { jobId } : {}), ...(callId ? { callId } : {}) },
        signal,
      ),
      signal,
    );
    if (answer === 'deny') {
      return { allowed: false, message: `The user denied ${toolName} (${label}). Ask them or try another way.` };
    }
    if (answer === 'allow-always' && sticky) this.remember(request);
    return { allowed: true };
  }

  /** The "allow always" answers of this session (/permissions): tools by name, bash by exact command. */
  remembered(): { tools: string[]; commands: string[] } {
    return { tools: [...this.alwaysTools], commands: [...this.alwaysCommands] };
  }

  /** Forgets one "allow always" answer: the next such call asks again. False when there was none. */
  forget(kind: 'tool' | 'command', value: string): boolean {
    return (kind === 'tool' ? this.alwaysTools : this.alwaysCommands).delete(value);
  }

  private isAlwaysAllowed(request: GateRequest): boolean {
    if (request.toolName !== 'bash') return this.alwaysTools.has(request.toolName);
    const command = commandOf(request.args);
    return command !== undefined && this.alwaysCommands.has(command);
  }

  private remember(request: GateRequest): void {
    if (request.toolName !== 'bash') {
      this.alwaysTools.add(request.toolName);
      return;
    }
    // Allowing "npm test" forever must not allow "rm -rf ~": bash is remembered per exact command.
    const command = commandOf(request.args);
    if (command !== undefined) this.alwaysCommands.add(command);
  }

  /** Names the mildest flag that would have allowed the call, and the reason when it is not the usual one. */
  private noOneToAsk(request: GateRequest, reason: string | undefined): string {
    const where = this.headless ? 'there is no one to ask in headless mode' : 'no approver is connected';
    const flags =
      decide('accept-edits', request).decision === 'allow'
        ? '--permission-mode accept-edits (edits) or --yolo (everything)'
        : '--yolo';
    const prefix = `${request.toolName}: `;
    const why = reason ? ` (${reason.startsWith(prefix) ? reason.slice(prefix.length) : reason})` : '';
    return `${request.toolName} needs approval${why}, and ${where}: rerun with ${flags}.`;
  }
}
