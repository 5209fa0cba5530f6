import { toolNameMatcher } from '../tools/tool-patterns.js';
import { type HookPermissionHint, withHookHint } from './hook-decision.js';
import { commandOf, decide } from './policy.js';
import type { Approver, PermissionMode, PermissionRequest } from './types.js';
import { untilAborted } from '../platform/until-aborted.js';

/** A tool call submitted to the gate: the policy's view plus what the user is shown. */
export interface GateRequest extends PermissionRequest {
  /** Short description for the approval prompt, e.g. the file path or the command. */
  label: string;
  /** Set when a sub-agent makes the call, so the prompt says which job asks. */
  jobId?: string;
  /** A PreToolUse hook's `allow` or `ask` (withHookHint says what it may change). */
  hook?: HookPermissionHint;
}

/**
 * The gate's answer; `message` is what the model reads as the tool result. `sandbox` is set
 * when no one approved the call and it rests on the read-only judgement alone.
 */
export type GateResult = { allowed: true; sandbox?: 'read-only' } | { allowed: false; message: string };

export interface ApprovalGateOptions {
  mode: PermissionMode;
  /** Asks the user; absent in headless mode. */
  approver?: Approver;
  /** No one is at the terminal: every "ask" becomes a denial naming the flag that allows it. */
  headless: boolean;
  /**
   * Tool names and patterns the user allows without asking (setting `permissions.allow`): an
   * "allow always" given in advance. What asks every time, and what the policy denies, is untouched.
   */
  allow?: readonly string[];
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
  private readonly allowedBySettings: (toolName: string) => boolean;
  /** Allowed while something runs (a custom command's `allowed-tools`, for its turn). */
  private readonly allowedFor = new Set<(toolName: string) => boolean>();

  constructor(options: ApprovalGateOptions) {
    this.currentMode = options.mode;
    this.approver = options.approver;
    this.headless = options.headless;
    this.allowedBySettings = toolNameMatcher(options.allow ?? []);
  }

  /**
   * Runs `run` with `patterns` answering "ask" in advance, like `permissions.allow`, until it
   * settles: what asks every time, and what the policy denies, is untouched.
   */
  async allowWhile<T>(patterns: readonly string[], run: () => Promise<T>): Promise<T> {
    if (patterns.length === 0) return run();
    const matcher = toolNameMatcher(patterns);
    this.allowedFor.add(matcher);
    try {
      return await run();
    } finally {
      this.allowedFor.delete(matcher);
    }
  }

  private allowedNow(toolName: string): boolean {
    for (const matcher of this.allowedFor) if (matcher(toolName)) return true;
    return false;
  }

  get mode(): PermissionMode {
    return this.currentMode;
  }

  setMode(mode: PermissionMode): void {
    this.currentMode = mode;
  }

  async check(request: GateRequest, signal: AbortSignal): Promise<GateResult> {
    const decision = withHookHint(decide(this.currentMode, request), request.hook);
    if (decision.decision === 'allow') return decision.sandbox ? { allowed: true, sandbox: decision.sandbox } : { allowed: true };
    if (decision.decision === 'deny') return { allowed: false, message: decision.reason };
    const sticky = !decision.askEveryTime;
    if (
      sticky &&
      (this.isAlwaysAllowed(request) || this.allowedBySettings(request.toolName) || this.allowedNow(request.toolName))
    )
      return { allowed: true };

    if (!this.approver || this.headless) {
      return { allowed: false, message: this.noOneToAsk(request, sticky ? undefined : decision.reason) };
    }

    const { toolName, label, args, jobId } = request;
    signal.throwIfAborted();
    const answer = await untilAborted(
      this.approver({ toolName, label, args, reason: decision.reason, ...(jobId ? { jobId } : {}) }, signal),
      signal,
    );
    if (answer === 'deny') {
      return { allowed: false, message: `The user denied ${toolName} (${label}). Ask them or try another way.` };
    }
    if (answer === 'allow-always' && sticky) this.remember(request);
    return { allowed: true };
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
