/**
 * The status lines' commands (settings `statusLine`, `subagentStatusLine`): each run is one
 * `sh -c` as a hook's (runner.ts), the JSON on stdin, stopped with its process group after
 * 5 s; what it printed becomes one line a terminal may draw (platform/terminal-line.ts).
 */
import { terminalLine } from '../platform/terminal-line.js';
import type { Timers } from '../platform/timers.js';
import type { HookRun } from './decision.js';
import { type SpawnHook, runHook } from './runner.js';
import type { StatusLineSetting } from './status-line-settings.js';

/** How long one run may take before its process group is stopped (Claude Code's status line is as impatient). */
export const STATUS_TIMEOUT_MS = 5_000;

/** What one run came to: its line (empty when it printed nothing), why it failed, or nothing (the app closed). */
export type StatusOutcome = { kind: 'line'; line: string } | { kind: 'failed'; reason: string } | { kind: 'aborted' };

/** One configured status line command. */
export interface StatusCommand {
  /** The command as the settings give it. */
  readonly command: string;
  /** Spaces before the line (`padding`, 0 unless set). */
  readonly padding: number;
  /** Runs it once with `input` as JSON on stdin; never throws. */
  run(input: unknown, signal: AbortSignal): Promise<StatusOutcome>;
}

/** The session's status line and the sub-agent rows', each when configured. */
export interface StatusCommands {
  main?: StatusCommand;
  subagent?: StatusCommand;
}

export interface StatusCommandOptions {
  /** The project's root: the command runs there, and it is `CLAUDE_PROJECT_DIR`. */
  cwd: string;
  /** The environment it starts from, the session's secrets already taken out. */
  env: NodeJS.ProcessEnv;
  spawn?: SpawnHook;
  timers?: Timers;
  timeoutMs?: number;
}

/** The commands the settings name (a project's only when trust let them through). */
export function statusCommands(
  settings: { statusLine?: StatusLineSetting; subagentStatusLine?: StatusLineSetting },
  options: StatusCommandOptions,
): StatusCommands {
  return {
    ...(settings.statusLine ? { main: statusCommand(settings.statusLine, options) } : {}),
    ...(settings.subagentStatusLine ? { subagent: statusCommand(settings.subagentStatusLine, options) } : {}),
  };
}

function statusCommand(setting: StatusLineSetting, options: StatusCommandOptions): StatusCommand {
  const env = { ...options.env, CLAUDE_PROJECT_DIR: options.cwd, OUTRIDER_PROJECT_DIR: options.cwd };
  const timeoutMs = options.timeoutMs ?? STATUS_TIMEOUT_MS;
  return {
    command: setting.command,
    padding: setting.padding ?? 0,
    run: async (input, signal) =>
      statusOutcome(
        await runHook({
          command: setting.command,
          input,
          cwd: options.cwd,
          env,
          timeoutMs,
          signal,
          ...(options.spawn ? { spawn: options.spawn } : {}),
          ...(options.timers ? { timers: options.timers } : {}),
        }),
      ),
  };
}

/** A finished run as a status line: exit 0 gives its first line of stdout; anything else, why not (stderr's first line). */
export function statusOutcome(run: HookRun): StatusOutcome {
  if (run.aborted) return { kind: 'aborted' };
  if (run.spawnError !== undefined) return { kind: 'failed', reason: `could not start: ${plain(run.spawnError)}` };
  if (run.timedOut)
    return { kind: 'failed', reason: `printed no answer within ${run.timedOut.afterMs / 1000} s and was stopped` };
  if (run.exitCode !== 0) {
    const said = plain(run.stderr.trimStart()) || plain(run.stdout.trimStart());
    const how = run.exitCode === null ? 'was ended by a signal' : `exited with ${run.exitCode}`;
    return { kind: 'failed', reason: said ? `${how}: ${said}` : how };
  }
  return { kind: 'line', line: terminalLine(run.stdout) };
}

/** A line for a message: no styles, at most 200 characters. */
function plain(text: string): string {
  return terminalLine(text, { keepStyle: false, maxChars: 200 }).trim();
}
