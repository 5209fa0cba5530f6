import type { LoopEvent } from '../loop/events.js';
import type { PermissionMode } from '../permissions/types.js';
import { type Timers, realTimers } from '../platform/timers.js';
import { type HookDecision, type HookRun, type HookVerdict, combineVerdicts, interpretRun, outcomeOf } from './decision.js';
import type { HookEventName } from './hook-settings.js';
import { type HookCommand, type HookTable, hasHooks, hooksFor } from './matcher.js';
import { type SpawnHook, runHook } from './runner.js';

/** The `hook` event of the loop's union. */
export type HookEvent = Extract<LoopEvent, { type: 'hook' }>;

export interface HookDispatcherOptions {
  table: HookTable;
  /** The project's root: hooks run there, and it is their `cwd` and `CLAUDE_PROJECT_DIR`. */
  cwd: string;
  /** The environment hooks start from, the session's secrets already taken out. */
  env: NodeJS.ProcessEnv;
  sessionId: string;
  transcriptPath: string;
  /** The session's mode when the event fires (the user may change it). */
  permissionMode: () => PermissionMode;
  spawn?: SpawnHook;
  timers?: Timers;
  /** Applied to a hook's output before anything reads it: what it says may reach the model (the session's key scrubber). */
  scrub?: (text: string) => string;
  /** Runs an Agent SDK hook callback (`hook_callback`): its answer is the hook's JSON output. */
  callback?: HookCallback;
}

/** Asks the Agent SDK to run hook callback `id` with the event's input; resolves with its JSON output. */
export type HookCallback = (id: string, input: Record<string, unknown>, signal: AbortSignal) => Promise<unknown>;

/** What running one event's hooks came to, and an event per hook for the stream. */
export interface DispatchResult {
  decision: HookDecision;
  events: HookEvent[];
}

/** Claude Code's names for the permission modes, as hook scripts read `permission_mode`. */
const CLAUDE_MODE: Readonly<Record<PermissionMode, string>> = {
  default: 'default',
  'accept-edits': 'acceptEdits',
  plan: 'plan',
  yolo: 'bypassPermissions',
};

/**
 * Runs the session's hooks for an event: every matching command at once, each given the
 * event as Claude Code's JSON on stdin, and their verdicts combined.
 */
export class HookDispatcher {
  constructor(private readonly options: HookDispatcherOptions) {}

  /** The project root hooks run in. */
  get root(): string {
    return this.options.cwd;
  }

  /** The same session, cwd, environment and scrubbing over other hooks (an agent file's, for its jobs alone). */
  withTable(table: HookTable): HookDispatcher {
    return new HookDispatcher({ ...this.options, table });
  }

  has(event: HookEventName): boolean {
    return hasHooks(this.options.table, event);
  }

  async dispatch(
    event: HookEventName,
    request: { subjects?: readonly string[]; input: Record<string, unknown>; signal: AbortSignal; tool?: HookEvent['tool'] },
  ): Promise<DispatchResult> {
    const commands = hooksFor(this.options.table, event, request.subjects);
    if (commands.length === 0) return { decision: combineVerdicts([]), events: [] };
    const { cwd } = this.options;
    const input = {
      session_id: this.options.sessionId,
      transcript_path: this.options.transcriptPath,
      cwd,
      permission_mode: CLAUDE_MODE[this.options.permissionMode()],
      hook_event_name: event,
      ...request.input,
    };
    const env = { ...this.options.env, CLAUDE_PROJECT_DIR: cwd, OUTRIDER_PROJECT_DIR: cwd };
    const runs = await Promise.all(
      commands.map((command) =>
        command.callback !== undefined
          ? runCallback(this.options.callback, command, input, request.signal, this.options.timers)
          : runHook({
              command: command.command,
              input,
              cwd,
              env,
              timeoutMs: command.timeoutMs,
              signal: request.signal,
              spawn: this.options.spawn,
              timers: this.options.timers,
            }),
      ),
    );
    const scrub = this.options.scrub ?? ((text: string) => text);
    const verdicts = runs
      .filter((run) => !run.aborted)
      .map((run) => interpretRun(event, { ...run, stdout: scrub(run.stdout), stderr: scrub(run.stderr) }));
    return { decision: combineVerdicts(verdicts), events: verdicts.map((verdict) => hookEvent(event, verdict, request.tool)) };
  }
}

/** An SDK hook callback as a run: its answer is the JSON a command would print; no answer in time is a timeout. */
async function runCallback(
  callback: HookCallback | undefined,
  command: HookCommand,
  input: Record<string, unknown>,
  signal: AbortSignal,
  timers: Timers = realTimers,
): Promise<HookRun> {
  const base = { command: command.command, stdout: '', stderr: '' };
  if (!callback) return { ...base, exitCode: null, spawnError: 'no Agent SDK is connected to run it' };
  const stop = new AbortController();
  const onAbort = () => stop.abort();
  signal.addEventListener('abort', onAbort, { once: true });
  let timedOut = false;
  const timer = timers.setTimeout(() => {
    timedOut = true;
    stop.abort();
  }, command.timeoutMs);
  try {
    const output = await callback(command.callback!, input, stop.signal);
    return { ...base, exitCode: 0, stdout: JSON.stringify(output ?? {}) };
  } catch (error) {
    if (timedOut) return { ...base, exitCode: null, timedOut: { afterMs: command.timeoutMs } };
    if (signal.aborted) return { ...base, exitCode: null, aborted: true };
    return { ...base, exitCode: 1, stderr: error instanceof Error ? error.message : String(error) };
  } finally {
    timers.clearTimeout(timer);
    signal.removeEventListener('abort', onAbort);
  }
}

function hookEvent(event: HookEventName, verdict: HookVerdict, tool: HookEvent['tool']): HookEvent {
  const { outcome, text } = outcomeOf(verdict);
  return {
    type: 'hook',
    event,
    command: verdict.command,
    outcome,
    ...(text !== undefined ? { text } : {}),
    ...(verdict.message !== undefined ? { message: verdict.message } : {}),
    ...(tool ? { tool } : {}),
  };
}
