import { randomBytes } from 'node:crypto';
import os from 'node:os';
import path from 'node:path';
import * as z from 'zod';
import { type CommandPlan, type SandboxConfig, type SandboxLayout, type SandboxProbe, planCommand } from '../sandbox/plan.js';
import { spawnPlan } from '../sandbox/spawn.js';
import { type Timers, realTimers } from '../timers.js';
import { type ChildSecrets, withoutSecrets } from './child-env.js';
import { type ToolContext, type ToolOutput, type Workspace, defineTool } from './define.js';
import { HeadTailBuffer } from './head-tail-buffer.js';
import { realPathOf } from './paths.js';
import { terminateGroup, terminateMarked } from './process-group.js';
import { readOnlySandboxEnv } from './read-only-sandbox.js';

export const BASH_DEFAULT_TIMEOUT_MS = 120_000;
export const BASH_MAX_TIMEOUT_MS = 600_000;
/**
 * Output kept: head and tail of this many characters in all. Well above the session's
 * large-result threshold, so long output is handed off whole to read_result, not lost.
 */
export const BASH_OUTPUT_CAP = 1_000_000;
/** How long a finished command's pipes may stay open (held by a background child) before its group is stopped. */
const EXIT_DRAIN_MS = 500;
/** Between SIGTERM and SIGKILL for what a stop reaches. */
const KILL_GRACE_MS = 1_000;
/**
 * After a stop, how long the output may stay open before the call returns without it: a
 * process that left the group and dropped its marker cannot be found, and must not hang the call.
 */
const GIVE_UP_MS = 2_000;
/**
 * Every command's environment carries `OUTRIDER_RUN=<id>`, unique per call: its descendants
 * inherit it, so a stop finds those that left the process group (setsid, daemons) in /proc.
 */
const RUN_MARKER = 'OUTRIDER_RUN';
/** Live lines passed to onUpdate per chunk: progress is cosmetic, the result has everything. */
const UPDATE_LINES_PER_CHUNK = 20;
const UPDATE_LINE_MAX = 300;

const schema = z.object({
  command: z.string(),
  timeout_ms: z.number().int().min(1).max(BASH_MAX_TIMEOUT_MS).optional(),
});

type StopReason = 'timeout' | 'abort' | 'background';

/** The OS sandbox of one session: the user's choice and whether bubblewrap works (probed once). */
export interface BashSandbox {
  config: SandboxConfig;
  probe: SandboxProbe;
}

/** Without a session's sandbox: approved commands run as written, auto-allowed ones rest on the parser. */
const NO_SANDBOX: BashSandbox = {
  config: { mode: 'off', network: false },
  probe: { ok: false, reason: 'no OS sandbox was set up for this session' },
};

export interface BashToolOptions {
  /** Timeouts, the output drain and kill escalation run on these (tests pass a fake clock). */
  timers?: Timers;
  sandbox?: BashSandbox;
  /** The environment commands start from (default: outrider's own). */
  env?: NodeJS.ProcessEnv;
  /** Kept from every command's environment (the provider key). */
  secrets?: ChildSecrets;
  /** Applied to live output lines: they reach the front ends (and stream-json) before any limiter. */
  scrub?: (text: string) => string;
}

/** The bash tool of one session. */
export function createBashTool(options: BashToolOptions = {}) {
  const timers = options.timers ?? realTimers;
  const sandbox = options.sandbox ?? NO_SANDBOX;
  return defineTool({
    name: 'bash',
    description:
      'Run a command with `bash -c` in the workspace root; stdin is closed. Returns stdout and stderr interleaved (long output keeps head and tail) and the exit code when non-zero. Timeout 120000 ms by default, at most 600000. Prefer read_file, grep and glob to cat, grep and find.',
    schema,
    kind: 'mutating',
    label: (args) => args.command.trim().split('\n', 1)[0] ?? '',
    async execute(args, ctx) {
      ctx.signal.throwIfAborted();
      const inherited = withoutSecrets(options.env ?? process.env, options.secrets ?? { names: [], values: [] }, {
        credentials: ctx.sandbox === 'read-only',
      });
      const base = { ...inherited, PAGER: 'cat', GIT_PAGER: 'cat' };
      // Allowed without asking because it only reads: run it so that it cannot do more.
      const env =
        ctx.sandbox === 'read-only'
          ? await readOnlySandboxEnv({ workspace: ctx.workspace, base, signal: ctx.signal })
          : { ok: true as const, env: base };
      ctx.signal.throwIfAborted();
      if (!env.ok) return { content: env.error, isError: true };
      const plan = planCommand({
        command: args.command,
        decision: ctx.sandbox,
        config: sandbox.config,
        probe: sandbox.probe,
        layout: layoutFor(ctx.workspace, env.env),
      });
      if (plan.kind === 'refused') return { content: plan.message, isError: true };
      const onUpdate = ctx.onUpdate && options.scrub ? scrubbed(ctx.onUpdate, options.scrub) : ctx.onUpdate;
      return runBash(plan, {
        timeoutMs: args.timeout_ms ?? BASH_DEFAULT_TIMEOUT_MS,
        ctx: { ...ctx, ...(onUpdate ? { onUpdate } : {}) },
        env: env.env,
        timers,
      });
    },
  });
}

/** The bash tool with real timers and no OS sandbox. */
export const bashTool = createBashTool();

const scrubbed =
  (onUpdate: (text: string) => void, scrub: (text: string) => string) =>
  (text: string): void =>
    onUpdate(scrub(text));

/** Where HOME and the temp dirs really are, as the command will see them. */
function layoutFor(workspace: Workspace, env: NodeJS.ProcessEnv): SandboxLayout {
  const real = (dir: string | undefined) => (dir && path.isAbsolute(dir) ? realPathOf(path.resolve(dir)) : undefined);
  const tmpDirs = [...new Set(['/tmp', real(env.TMPDIR) ?? real(os.tmpdir())].filter((dir): dir is string => dir !== undefined))];
  const home = real(env.HOME);
  return { workspace, tmpDirs, arch: process.arch, ...(home ? { home } : {}) };
}

interface RunOptions {
  timeoutMs: number;
  ctx: ToolContext;
  env: NodeJS.ProcessEnv;
  timers: Timers;
}

function runBash(
  plan: Exclude<CommandPlan, { kind: 'refused' }>,
  { timeoutMs, ctx, env, timers }: RunOptions,
): Promise<ToolOutput> {
  ctx.signal.throwIfAborted();
  return new Promise((resolve) => {
    const runId = randomBytes(8).toString('hex');
    const child = spawnPlan(plan, { cwd: ctx.workspace.root, env: { ...env, [RUN_MARKER]: runId } });
    const output = new HeadTailBuffer(BASH_OUTPUT_CAP);
    const updates = lineSplitter(ctx.onUpdate);
    let stopping: StopReason | undefined;
    /** Something was still running when the stop came (a group already gone finished on its own). */
    let reached = false;
    let gaveUp = false;
    let settled = false;
    let exit: { code: number | null; signal: NodeJS.Signals | null } = { code: null, signal: null };
    const pending = new Set<unknown>();
    const after = (ms: number, fn: () => void): void => {
      const handle = timers.setTimeout(() => {
        pending.delete(handle);
        fn();
      }, ms);
      pending.add(handle);
    };

    const stop = (reason: StopReason): void => {
      if (stopping || settled) return;
      stopping = reason;
      const group = child.pid !== undefined && terminateGroup(child.pid, KILL_GRACE_MS, timers);
      const strays = terminateMarked(RUN_MARKER, runId, KILL_GRACE_MS, timers);
      reached = group || strays > 0;
      after(GIVE_UP_MS, giveUp);
    };
    // Stop reading: whatever still holds the pipes could not be stopped, and the call must return.
    const giveUp = (): void => {
      gaveUp = true;
      child.stdout.destroy();
      child.stderr.destroy();
      child.unref();
      updates.flush();
      finish(describeResult(output.text(), { ...exit, stopping, reached, gaveUp, timeoutMs }));
    };
    after(timeoutMs, () => stop('timeout'));
    const onAbort = (): void => stop('abort');
    ctx.signal.addEventListener('abort', onAbort, { once: true });

    const finish = (result: ToolOutput): void => {
      if (settled) return;
      settled = true;
      for (const handle of pending) timers.clearTimeout(handle);
      pending.clear();
      ctx.signal.removeEventListener('abort', onAbort);
      resolve(result);
    };

    const onData = (chunk: string): void => {
      output.append(chunk);
      updates.push(chunk);
    };
    child.stdout.setEncoding('utf8').on('data', onData);
    child.stderr.setEncoding('utf8').on('data', onData);

    child.on('error', (error) => {
      if (child.pid !== undefined) terminateGroup(child.pid, KILL_GRACE_MS, timers);
      finish({ content: `bash could not be started: ${error.message}`, isError: true });
    });
    // A background child (`server &`) keeps the pipes open after bash exits; it is stopped rather
    // than left to hang the call or outlive it unseen.
    child.on('exit', (code, signal) => {
      exit = { code, signal };
      after(EXIT_DRAIN_MS, () => stop('background'));
    });
    child.on('close', (code, signal) => {
      updates.flush();
      finish(describeResult(output.text(), { code, signal, stopping, reached, gaveUp, timeoutMs }));
    });
  });
}

interface Outcome {
  code: number | null;
  signal: NodeJS.Signals | null;
  stopping: StopReason | undefined;
  reached: boolean;
  gaveUp: boolean;
  timeoutMs: number;
}

function describeResult(text: string, { code, signal, stopping, reached, gaveUp, timeoutMs }: Outcome): ToolOutput {
  // A stop that found nothing running and did not have to give up came as the command finished by itself.
  const stopped = stopping && (reached || gaveUp) ? stopping : undefined;
  const status: string[] = [];
  if (stopped === 'timeout') status.push(`timed out after ${formatSeconds(timeoutMs)}`);
  else if (stopped === 'abort') status.push('interrupted');
  else if (signal) status.push(`killed by ${signal}`);
  else if (code !== 0 && code !== null) status.push(`exit code ${code}`);
  if (stopped === 'background' && reached) {
    status.push(
      'background processes still held the output open and were stopped; redirect their output (cmd > file 2>&1 &) to keep them running',
    );
  }
  if (gaveUp) {
    status.push(
      "a process that left the command's process group still held the output open and could not be found to stop; " +
        'outrider stopped reading its output (it may still be running)',
    );
  }
  const body = text.replace(/\n+$/, '') || '(no output)';
  const content = status.length ? `${body}\n\n${status.join('\n')}` : body;
  return { content, isError: stopped === 'timeout' || stopped === 'abort' };
}

function formatSeconds(ms: number): string {
  return `${Number((ms / 1000).toFixed(ms < 1000 ? 2 : 1))}s`;
}

/** Turns chunks into whole lines for onUpdate; a `\r` progress line shows its latest state. */
function lineSplitter(onUpdate: ((text: string) => void) | undefined): { push(chunk: string): void; flush(): void } {
  let partial = '';
  const emit = (lines: string[]): void => {
    for (const raw of lines.slice(-UPDATE_LINES_PER_CHUNK)) {
      const line = raw.slice(raw.lastIndexOf('\r', raw.length - 2) + 1).replace(/\r$/, '');
      if (line.trim() !== '') onUpdate?.(line.slice(0, UPDATE_LINE_MAX));
    }
  };
  return {
    push(chunk) {
      if (!onUpdate) return;
      const lines = (partial + chunk).split('\n');
      // A line that never ends (a bare-\r progress bar) is kept to its latest part.
      partial = (lines.pop() ?? '').slice(-UPDATE_LINE_MAX * 4);
      emit(lines);
    },
    flush() {
      if (partial !== '') emit([partial]);
      partial = '';
    },
  };
}
