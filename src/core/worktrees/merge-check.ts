/**
 * `agents.mergeCheck`: the command a merge queue runs in its temporary worktree after each job's
 * changes are applied (`npm test`). It runs as an approved bash command does: under the session's
 * OS sandbox, without the provider key, in its own process group, which its timeout or a stop kills.
 */
import { type ChildSecrets, withoutSecrets } from '../platform/child-env.js';
import { makeWorkspace } from '../platform/paths.js';
import { type Timers, realTimers } from '../platform/timers.js';
import { untilAborted } from '../platform/until-aborted.js';
import type { PermissionRules } from '../permissions/rule-match.js';
import { type SandboxProbe, fenceFor, planCommand } from '../sandbox/plan.js';
import { type BashSandbox, layoutFor } from '../tools/bash.js';
import { HeadTailBuffer } from '../tools/head-tail-buffer.js';
import { spawnShell } from '../tools/shell-process.js';

/** How long a check may run unless `agents.mergeCheckTimeoutMs` says otherwise: 10 minutes. */
export const MERGE_CHECK_TIMEOUT_MS = 600_000;
/** Lines of a failed check's output a report shows: its end, where test runners say what failed. */
export const CHECK_TAIL_LINES = 20;
/** What is kept of a check's output while it runs; only its end is ever shown. */
const OUTPUT_CAP = 64 * 1024;

/** How one run of the check ended, with the last lines it printed. */
export type CheckOutcome =
  | { ok: true; tail: string[] }
  | {
      ok: false;
      /** `exit code 1`, `timed out after 10m`, `stopped: the merge was interrupted`, a refusal. */
      why: string;
      /** Set when outrider stopped it: its timeout, or the merge's stop. */
      stopped?: 'timeout' | 'abort';
      tail: string[];
    };

/** The session's merge check: its command, its bound, and a way to run it in a directory. */
export interface MergeCheck {
  readonly command: string;
  readonly timeoutMs: number;
  /** Runs it with `cwd` as its workspace; `env` is added to its environment. Never throws. */
  run(cwd: string, options: { signal: AbortSignal; env?: Record<string, string> }): Promise<CheckOutcome>;
}

export interface MergeCheckOptions {
  /** The command (`agents.mergeCheck`); none or blank: no check. */
  command?: string;
  timeoutMs?: number;
  /** The session's OS sandbox (what its bash tool gets); without it the command runs unfenced. */
  sandbox?: BashSandbox;
  /** The environment it starts from (default: outrider's own), less `secrets`. */
  env?: NodeJS.ProcessEnv;
  secrets?: ChildSecrets;
  /** Applied to the lines a report shows (the session's key scrubber). */
  scrub?: (text: string) => string;
  /** The session's deny rule that refuses this bash command, if one does. */
  denied?: (command: string) => string | undefined;
  timers?: Timers;
}

const NO_SANDBOX: BashSandbox = {
  config: { mode: 'off', network: false },
  probe: () => Promise.resolve({ ok: false, reason: 'no OS sandbox was set up for this session' }),
};
const NOT_NEEDED: SandboxProbe = { ok: false, reason: 'not needed for an unfenced command' };

/** The session's merge check, or undefined when no command is set. */
export function createMergeCheck(options: MergeCheckOptions): MergeCheck | undefined {
  const command = options.command?.trim();
  if (!command) return undefined;
  const timeoutMs = options.timeoutMs ?? MERGE_CHECK_TIMEOUT_MS;
  const sandbox = options.sandbox ?? NO_SANDBOX;
  const timers = options.timers ?? realTimers;
  const scrub = options.scrub ?? ((text: string) => text);
  const interrupted: CheckOutcome = { ok: false, why: 'stopped: the merge was interrupted', stopped: 'abort', tail: [] };
  return {
    command,
    timeoutMs,
    run: async (cwd, { signal, env: extra }) => {
      const rule = options.denied?.(command);
      if (rule) return { ok: false, why: `refused by the permission rule ${JSON.stringify(rule)}`, tail: [] };
      if (signal.aborted) return interrupted;
      const inherited = withoutSecrets(options.env ?? process.env, options.secrets ?? { names: [], values: [] }, {
        credentials: false,
      });
      const env = { ...inherited, PAGER: 'cat', GIT_PAGER: 'cat', ...extra };
      let probe: SandboxProbe;
      try {
        probe = fenceFor(undefined, sandbox.config) === 'off' ? NOT_NEEDED : await untilAborted(sandbox.probe(), signal);
      } catch {
        return interrupted;
      }
      const plan = planCommand({
        command,
        decision: undefined,
        config: sandbox.config,
        probe,
        layout: layoutFor(makeWorkspace(cwd), env),
      });
      if (plan.kind === 'refused') return { ok: false, why: plan.message, tail: [] };
      const shell = spawnShell(plan, { cwd, env, timers });
      const output = new HeadTailBuffer(OUTPUT_CAP);
      shell.onOutput((chunk) => output.append(chunk));
      const timer = timers.setTimeout(() => shell.stop('timeout'), timeoutMs);
      const onAbort = (): void => shell.stop('abort');
      signal.addEventListener('abort', onAbort, { once: true });
      if (signal.aborted) onAbort();
      const exit = await shell.ended;
      timers.clearTimeout(timer);
      signal.removeEventListener('abort', onAbort);
      const tail = lastLines(scrub(output.text()), CHECK_TAIL_LINES);
      if (exit.spawnError) return { ok: false, why: `could not be started: ${exit.spawnError}`, tail };
      if (exit.stopped === 'timeout') {
        return { ok: false, why: `timed out after ${duration(timeoutMs)}; its processes were killed`, stopped: 'timeout', tail };
      }
      if (exit.stopped === 'abort') return { ...interrupted, tail };
      if (exit.code === 0) return { ok: true, tail };
      return { ok: false, why: exit.signal ? `killed by ${exit.signal}` : `exit code ${exit.code ?? 'unknown'}`, tail };
    },
  };
}

/**
 * The session's check from its `agents` settings, run as an approved bash command is: under the
 * session's sandbox, without its secrets, and refused by a deny rule that covers the command.
 */
export function mergeCheckFor(
  agents: { mergeCheck?: string | undefined; mergeCheckTimeoutMs?: number | undefined } | undefined,
  session: Pick<MergeCheckOptions, 'sandbox' | 'secrets' | 'scrub'> & { rules: PermissionRules },
): MergeCheck | undefined {
  return createMergeCheck({
    ...(agents?.mergeCheck !== undefined ? { command: agents.mergeCheck } : {}),
    ...(agents?.mergeCheckTimeoutMs !== undefined ? { timeoutMs: agents.mergeCheckTimeoutMs } : {}),
    ...session,
    denied: (command) => session.rules.denied({ toolName: 'bash', kind: 'mutating', args: { command }, paths: [] }),
  });
}

/** The last `count` lines of `text` that are not blank at its end. */
export function lastLines(text: string, count: number): string[] {
  const lines = text.replace(/\s+$/, '').split('\n');
  return lines.length === 1 && lines[0] === '' ? [] : lines.slice(-count);
}

/** `10m`, `1m30s`, `45s`, `0.2s`. */
function duration(ms: number): string {
  if (ms < 1000) return `${Number((ms / 1000).toFixed(2))}s`;
  const seconds = Math.round(ms / 1000);
  const minutes = Math.floor(seconds / 60);
  const rest = seconds % 60;
  if (minutes === 0) return `${rest}s`;
  return rest ? `${minutes}m${rest}s` : `${minutes}m`;
}
