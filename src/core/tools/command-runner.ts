/**
 * A foreground bash command run in someone else's terminal: an editor's (`outrider acp` with
 * `terminal/*`), which shows it live. The command is the one outrider would spawn itself (the
 * sandbox wrapper included), with the environment outrider's own child would get and every
 * secret variable blanked, since an editor's terminal adds to the editor's environment. A stop
 * (timeout, abort) asks the editor to kill it and also signals every process carrying the
 * command's run marker, wherever it went, so nothing it started outlives it.
 *
 * A stop does not wait for the terminal to be created: the call ends at once, and a terminal the
 * editor creates after it is killed and released, and its marked processes stopped. A start that
 * fails in a way that may hide a started command (anything but the runner's own "not started")
 * fails the call instead of running the command locally, which could run it twice.
 */
import { randomBytes } from 'node:crypto';
import type { CommandPlan } from '../sandbox/plan.js';
import { OWNER_MARKER, ownerMark, terminateMarked } from '../platform/process-group.js';
import type { Timers } from '../platform/timers.js';
import { RUN_MARKER, type ShellExit } from './shell-process.js';

/** What the terminal is asked to run. */
export interface TerminalCommand {
  /** The program outrider would spawn. */
  command: string;
  args: string[];
  cwd: string;
  /** Set on top of the terminal's own environment; secrets appear with an empty value. */
  env: Array<{ name: string; value: string }>;
  /** The most output the terminal keeps (its beginning is dropped past it). */
  outputByteLimit: number;
}

/** A command the terminal started. Every method may reject (the editor failed or went away). */
export interface RunningCommand {
  /** Resolves when the command exited (`terminal/wait_for_exit`). */
  waitForExit(): Promise<{ code: number | null; signal: string | null }>;
  /** Its output so far (`terminal/output`); `truncated` when the terminal dropped some of it. */
  output(): Promise<{ text: string; truncated: boolean }>;
  kill(): Promise<void>;
  /** Frees the terminal (`terminal/release`); called once, at the end, whatever happened. */
  release(): Promise<void>;
}

/**
 * Runs bash commands elsewhere. `start` resolving to undefined means the command surely did not
 * start (the terminal is not there): it runs locally instead. `start` rejecting means it may have
 * started: the call fails and it is not run again. `signal` aborts when the call is stopped while
 * `start` is pending; `start` may still settle afterwards, and a command it started is then stopped.
 */
export interface CommandRunner {
  start(command: TerminalCommand, call: { callId?: string; signal: AbortSignal }): Promise<RunningCommand | undefined>;
}

/** How a command run through a runner went. */
export type RunnerOutcome =
  /** It never started there (the runner had no terminal): run it locally, it has not run. */
  | { kind: 'not-started' }
  /** It ran (or was stopped): its output and how it ended. */
  | { kind: 'ran'; text: string; exit: ShellExit }
  /** It may have started, and the terminal failed: it must not run again. */
  | { kind: 'failed'; message: string };

/** Between SIGTERM and SIGKILL for the marked processes, as for outrider's own commands. */
const KILL_GRACE_MS = 1_000;
/** After a stop, how long the terminal may take to report the exit before outrider reads what it has. */
const GIVE_UP_MS = 3_000;

export interface RunOnTerminal {
  plan: Exclude<CommandPlan, { kind: 'refused' }>;
  cwd: string;
  /** The environment outrider's own child would get. */
  env: NodeJS.ProcessEnv;
  /** Variables blanked: the secrets kept out of `env`, which the terminal's environment may hold. */
  blank: readonly string[];
  outputByteLimit: number;
  timeoutMs: number;
  signal: AbortSignal;
  timers: Timers;
  callId?: string;
}

/** Runs a planned command through `runner`, stopping it on the timeout or the signal. */
export async function runOnTerminal(runner: CommandRunner, run: RunOnTerminal): Promise<RunnerOutcome> {
  run.signal.throwIfAborted();
  const runId = randomBytes(8).toString('hex');
  const [command, ...args] = terminalArgv(run.plan);
  const spec: TerminalCommand = {
    command: command!,
    args,
    cwd: run.cwd,
    env: terminalEnv(run, runId),
    outputByteLimit: run.outputByteLimit,
  };
  const { timers, signal } = run;
  // What left the terminal's process group (a `cmd &`, setsid) is found by its marker.
  const sweep = (): boolean => terminateMarked(RUN_MARKER, runId, KILL_GRACE_MS, timers).reached;
  const stopping = new AbortController();
  const stoppedEarly = new Promise<'stopped'>((resolve) =>
    stopping.signal.addEventListener('abort', () => resolve('stopped'), { once: true }),
  );
  let running: RunningCommand | undefined;
  let stopped: 'timeout' | 'abort' | undefined;
  let reached = false;
  let giveUp: () => void = () => {};
  const gaveUp = new Promise<'gave-up'>((resolve) => (giveUp = () => resolve('gave-up')));
  let giveUpTimer: unknown;
  let killed: Promise<void> | undefined;
  const stop = (reason: 'timeout' | 'abort'): void => {
    if (stopped) return;
    stopped = reason;
    if (running) killed = running.kill().catch(() => {});
    reached = sweep();
    giveUpTimer = timers.setTimeout(giveUp, GIVE_UP_MS);
    stopping.abort();
  };
  const timer = timers.setTimeout(() => stop('timeout'), run.timeoutMs);
  const onAbort = (): void => stop('abort');
  signal.addEventListener('abort', onAbort, { once: true });
  try {
    // A start that throws at once is one that failed: it may have sent the request.
    const starting = (async () =>
      runner.start(spec, { ...(run.callId ? { callId: run.callId } : {}), signal: stopping.signal }))();
    const started = await Promise.race([
      starting.then(
        (value) => ({ value }),
        (error: unknown) => ({ error }),
      ),
      stoppedEarly,
    ]);
    if (started !== 'stopped' && 'value' in started && started.value) {
      running = started.value;
      // A stop that came as the answer did: the stop had no terminal to kill yet.
      if (stopped) killed = running.kill().catch(() => {});
    } else if (stopped) {
      if (started === 'stopped') void starting.then(stopLate(sweep), sweep);
      signal.throwIfAborted();
      return {
        kind: 'ran',
        text: "(the editor had not started the command's terminal yet; whatever it started is stopped)",
        exit: { code: null, signal: null, stopped: 'timeout', reached, gaveUp: false },
      };
    } else if (started !== 'stopped' && 'error' in started) {
      // The editor may have started it before it failed: nothing it started may stay behind.
      sweep();
      return {
        kind: 'failed',
        message: `the editor's terminal/create failed (${errorText(started.error)}): outrider did not run the command itself, and it may or may not have started in the editor's terminal. Ask the user to check the editor before running it again.`,
      };
    } else {
      return { kind: 'not-started' };
    }
    const exit = await Promise.race([running.waitForExit(), gaveUp]);
    // A stopped command's output is read once the editor has answered the kill (or given up on it).
    if (killed) await Promise.race([killed, gaveUp]);
    const out = await running.output();
    const code = exit === 'gave-up' ? null : exit.code;
    const exitSignal = exit === 'gave-up' ? null : (exit.signal as NodeJS.Signals | null);
    const text = out.truncated
      ? `… [the start of the output was cut: more than ${run.outputByteLimit} bytes] …\n${out.text}`
      : out.text;
    return {
      kind: 'ran',
      text,
      exit: {
        code,
        signal: exitSignal,
        ...(stopped ? { stopped } : {}),
        reached: reached || stopped !== undefined,
        // Its output is the terminal's to hold: nothing here waits on it.
        gaveUp: false,
      },
    };
  } catch (error) {
    if (!running) throw error;
    // It ran, at least in part: it must not run again, and nothing it started may stay behind.
    stop('abort');
    signal.throwIfAborted();
    return {
      kind: 'failed',
      message: `the editor's terminal failed while running the command (${errorText(error)}); it was stopped and not run again. Run it again, or ask the user to check the editor.`,
    };
  } finally {
    timers.clearTimeout(timer);
    if (giveUpTimer !== undefined) timers.clearTimeout(giveUpTimer);
    signal.removeEventListener('abort', onAbort);
    running?.release().catch(() => {});
  }
}

/** Stops a command whose terminal the editor created after the call was stopped. */
const stopLate =
  (sweep: () => void) =>
  (running: RunningCommand | undefined): void => {
    sweep();
    if (!running) return;
    void running
      .kill()
      .catch(() => {})
      .then(() => running.release())
      .catch(() => {});
  };

const errorText = (error: unknown): string => (error instanceof Error ? error.message : String(error));

/**
 * The argv outrider would spawn. bwrap reads a seccomp program from descriptor 3, which a
 * terminal cannot hand it: a fixed bash prelude opens it there (from its octal escapes) and
 * execs bwrap, so the terminal's process is bwrap itself.
 */
export function terminalArgv(plan: Exclude<CommandPlan, { kind: 'refused' }>): string[] {
  if (plan.kind !== 'bwrap' || !plan.seccomp) return [plan.file, ...plan.args];
  const escaped = [...plan.seccomp].map((byte) => `\\${byte.toString(8).padStart(3, '0')}`).join('');
  return ['bash', '--norc', '-c', 'exec "$@" 3< <(printf "$0")', escaped, plan.file, ...plan.args];
}

function terminalEnv(run: RunOnTerminal, runId: string): Array<{ name: string; value: string }> {
  const env: Record<string, string> = {};
  for (const name of run.blank) env[name] = '';
  for (const [name, value] of Object.entries(run.env)) if (value !== undefined) env[name] = value;
  if (run.plan.kind === 'bwrap') Object.assign(env, run.plan.env);
  env[RUN_MARKER] = runId;
  env[OWNER_MARKER] = ownerMark();
  return Object.entries(env).map(([name, value]) => ({ name, value }));
}
