import type { HookOutcome } from '../loop/events.js';
import { oneLine } from '../platform/text.js';
import type { HookEventName } from './hook-settings.js';

// What a hook's exit code and output mean, as Claude Code defines it. Pure: a finished run in,
// a verdict out, so every rule is tested without a process.

/** How one hook command ended. */
export interface HookRun {
  command: string;
  /** Null when it did not exit by itself (a timeout, an abort, a signal). */
  exitCode: number | null;
  stdout: string;
  stderr: string;
  timedOut?: { afterMs: number };
  /** The turn was interrupted while it ran: its output means nothing. */
  aborted?: boolean;
  /** It could not be started. */
  spawnError?: string;
}

/** A PreToolUse hook's say on the call: Claude Code's `permissionDecision`. */
export type HookPermission = 'allow' | 'ask' | 'deny';

/** What one run asks for. */
export interface HookVerdict {
  command: string;
  /** Exit code 2, or `decision: "block"`: the call is refused, the prompt dropped, the stop undone. */
  block?: string;
  permission?: { decision: HookPermission; reason: string };
  /** Text for the model (`additionalContext`; the plain stdout of UserPromptSubmit and SessionStart). */
  context?: string;
  /** `continue: false`: the agent stops; `stopReason` is for the user. */
  stop?: string;
  /** `systemMessage`: shown to the user. */
  message?: string;
  /** The hook failed without deciding (another exit code, a timeout, bad JSON): the user is told, nothing is blocked. */
  warning?: string;
}

/** The verdicts of every hook of one event, together. */
export interface HookDecision {
  block?: string;
  /** The strictest permission any hook gave: deny over ask over allow. */
  permission?: { decision: HookPermission; reason: string };
  context?: string;
  stop?: string;
  verdicts: HookVerdict[];
}

/** Most a reason or a context may add to what the model reads (Claude Code's cap for additionalContext). */
export const MAX_HOOK_TEXT = 10_000;

/** Events where exit code 2 means something; for the others it is reported like any failure. */
const BLOCKING_EVENTS: ReadonlySet<HookEventName> = new Set([
  'PreToolUse',
  'PostToolUse',
  'UserPromptSubmit',
  'Stop',
  'SubagentStop',
]);
/** Events whose plain stdout is context for the model. */
const STDOUT_IS_CONTEXT: ReadonlySet<HookEventName> = new Set(['UserPromptSubmit', 'SessionStart']);

export function interpretRun(event: HookEventName, run: HookRun): HookVerdict {
  const verdict: HookVerdict = { command: run.command };
  if (run.aborted) return verdict;
  if (run.spawnError !== undefined) return { ...verdict, warning: `could not be started: ${run.spawnError}` };
  if (run.timedOut) return { ...verdict, warning: `timed out after ${run.timedOut.afterMs / 1000}s and was stopped` };
  const stderr = run.stderr.trim();
  if (run.exitCode === 2) {
    if (!BLOCKING_EVENTS.has(event)) return { ...verdict, warning: `exit code 2${stderr ? `: ${oneLine(stderr, 200)}` : ''}` };
    return { ...verdict, block: bounded(stderr || 'a hook refused this without saying why (exit code 2, nothing on stderr)') };
  }
  if (run.exitCode !== 0) {
    const how = run.exitCode === null ? 'was killed' : `exit code ${run.exitCode}`;
    return { ...verdict, warning: `${how}${stderr ? `: ${oneLine(stderr, 200)}` : ''}` };
  }
  const stdout = run.stdout.trim();
  if (!stdout) return verdict;
  const json = stdout.startsWith('{') ? parseObject(stdout) : undefined;
  if (!json) {
    if (STDOUT_IS_CONTEXT.has(event)) return { ...verdict, context: bounded(stdout) };
    return stdout.startsWith('{') ? { ...verdict, warning: 'printed JSON that could not be read; it was ignored' } : verdict;
  }
  return { ...verdict, ...fromJson(event, json) };
}

/** Claude Code's JSON output fields, those that mean something for `event`. */
function fromJson(event: HookEventName, json: Record<string, unknown>): Omit<HookVerdict, 'command'> {
  const out: Omit<HookVerdict, 'command'> = {};
  const specific = isObject(json.hookSpecificOutput) ? json.hookSpecificOutput : {};
  const reason = text(json.reason);
  if (json.continue === false) out.stop = bounded(text(json.stopReason) ?? `a ${event} hook stopped the agent`);
  const message = text(json.systemMessage);
  if (message) out.message = bounded(message);

  if (event === 'PreToolUse') {
    const decision = specific.permissionDecision;
    const why = text(specific.permissionDecisionReason) ?? reason;
    if (decision === 'allow' || decision === 'ask' || decision === 'deny') {
      out.permission = { decision, reason: bounded(why ?? `a PreToolUse hook said ${decision}`) };
    } else if (json.decision === 'approve') {
      // Claude Code's older spelling.
      out.permission = { decision: 'allow', reason: bounded(why ?? 'a PreToolUse hook approved it') };
    } else if (json.decision === 'block') {
      out.permission = { decision: 'deny', reason: bounded(why ?? 'a PreToolUse hook refused it') };
    }
  } else if (json.decision === 'block' && BLOCKING_EVENTS.has(event)) {
    out.block = bounded(reason ?? `a ${event} hook blocked this without saying why`);
  }
  const context = text(specific.additionalContext);
  if (context) out.context = bounded(context);
  return out;
}

/** Every hook's verdict for one event, combined: any block blocks; deny wins over ask, ask over allow. */
export function combineVerdicts(verdicts: HookVerdict[]): HookDecision {
  const decision: HookDecision = { verdicts };
  const joined = (values: Array<string | undefined>) => {
    const present = values.filter((v): v is string => v !== undefined && v !== '');
    return present.length ? bounded(present.join('\n')) : undefined;
  };
  const block = joined(verdicts.map((v) => v.block));
  if (block) decision.block = block;
  const context = joined(verdicts.map((v) => v.context));
  if (context) decision.context = context;
  const stop = joined(verdicts.map((v) => v.stop));
  if (stop) decision.stop = stop;
  for (const level of ['deny', 'ask', 'allow'] as const) {
    const at = verdicts.filter((v) => v.permission?.decision === level);
    if (at.length) {
      decision.permission = { decision: level, reason: joined(at.map((v) => v.permission!.reason))! };
      break;
    }
  }
  return decision;
}

export function outcomeOf(verdict: HookVerdict): { outcome: HookOutcome; text?: string } {
  if (verdict.stop !== undefined) return { outcome: 'stopped', text: verdict.stop };
  if (verdict.block !== undefined) return { outcome: 'blocked', text: verdict.block };
  if (verdict.permission?.decision === 'deny') return { outcome: 'denied', text: verdict.permission.reason };
  if (verdict.permission?.decision === 'ask') return { outcome: 'asked', text: verdict.permission.reason };
  if (verdict.permission?.decision === 'allow') return { outcome: 'allowed', text: verdict.permission.reason };
  if (verdict.warning !== undefined) return { outcome: 'warning', text: verdict.warning };
  if (verdict.context !== undefined) return { outcome: 'context', text: oneLine(verdict.context, 200) };
  return { outcome: 'ok' };
}

function bounded(value: string): string {
  if (value.length <= MAX_HOOK_TEXT) return value;
  return `${value.slice(0, MAX_HOOK_TEXT)}\n[hook output cut at ${MAX_HOOK_TEXT} characters]`;
}

function parseObject(textValue: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(textValue);
    return isObject(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function text(value: unknown): string | undefined {
  return typeof value === 'string' && value.trim() !== '' ? value : undefined;
}

export type { HookOutcome };
