import os from 'node:os';
import path from 'node:path';
import * as z from 'zod';
import {
  type CommandPlan,
  type SandboxConfig,
  type SandboxLayout,
  type SandboxProbe,
  fenceFor,
  planCommand,
} from '../sandbox/plan.js';
import { type Timers, realTimers } from '../platform/timers.js';
import { type ChildSecrets, withoutSecrets } from '../platform/child-env.js';
import { type ToolContext, type ToolOutput, type Workspace, defineTool } from './define.js';
import { HeadTailBuffer } from './head-tail-buffer.js';
import { realPathOf } from '../platform/paths.js';
import { readOnlySandboxEnv } from '../platform/read-only-sandbox.js';
import type { ShellHost } from './shell-host.js';
import { type ShellExit, spawnShell } from './shell-process.js';
import { lineSplitter } from './output-lines.js';
import { untilAborted } from '../platform/until-aborted.js';
import { type CommandRunner, runOnTerminal } from './command-runner.js';

export const BASH_DEFAULT_TIMEOUT_MS = 120_000;
export const BASH_MAX_TIMEOUT_MS = 600_000;
/**
 * Output kept: head and tail of this many characters in all. Well above the session's
 * large-result threshold, so long output is handed off whole to read_result, not lost.
 */
export const BASH_OUTPUT_CAP = 1_000_000;

const schema = z.object({
  command: z.string(),
  timeout_ms: z.number().int().min(1).max(BASH_MAX_TIMEOUT_MS).optional(),
  run_in_background: z
    .boolean()
    .optional()
    .describe('run as background shell sh-N, no timeout: agent_poll reads it, agent_stop ends it'),
});

/** The OS sandbox of one session: the user's choice and whether bubblewrap works (probed once). */
export interface BashSandbox {
  config: SandboxConfig;
  /** Whether bwrap works here: asked only for a command it could fence (a session probes on the first such call). */
  probe: () => Promise<SandboxProbe>;
}

/** What an unfenced command's plan is given for the probe, which it does not read. */
const NOT_NEEDED: SandboxProbe = { ok: false, reason: 'not needed for an unfenced command' };

/** Without a session's sandbox: approved commands run as written, auto-allowed ones rest on the parser. */
const NO_SANDBOX: BashSandbox = {
  config: { mode: 'off', network: false },
  probe: () => Promise.resolve({ ok: false, reason: 'no OS sandbox was set up for this session' }),
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
  /** Where background shells go (the session's job manager); without it run_in_background is refused. */
  shells?: ShellHost;
  /**
   * Where the parent's foreground commands run instead of a child of outrider's (an editor's
   * terminal); one that did not start there runs locally. Background shells and sub-agents' calls stay local.
   */
  runner?: CommandRunner;
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
    // An approval prompt says so when the command would keep running in the background.
    label: (args) => `${args.command.trim().split('\n', 1)[0] ?? ''}${args.run_in_background ? ' (in the background)' : ''}`,
    async execute(args, ctx) {
      ctx.signal.throwIfAborted();
      const source = options.env ?? process.env;
      const secrets = options.secrets ?? { names: [], values: [] };
      const inherited = withoutSecrets(source, secrets, {
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
        // Asked only for a command it could fence: an unfenced one starts as soon as it may. The
        // first such command waits for the session's probe, unless the user stops it first.
        probe: fenceFor(ctx.sandbox, sandbox.config) === 'off' ? NOT_NEEDED : await untilAborted(sandbox.probe(), ctx.signal),
        layout: layoutFor(ctx.workspace, env.env),
      });
      if (plan.kind === 'refused') return { content: plan.message, isError: true };
      const run = { ctx, env: env.env, timers, command: args.command, host: options.shells, scrub: options.scrub };
      if (args.run_in_background) return startInBackground(plan, run);
      const timeoutMs = args.timeout_ms ?? BASH_DEFAULT_TIMEOUT_MS;
      if (options.runner && !ctx.jobId) {
        // What the command must not see, though the terminal's own environment may hold it.
        const blank = [...new Set([...secrets.names, ...Object.keys(source).filter((name) => !(name in env.env))])];
        const ran = await runOnTerminal(options.runner, {
          plan,
          cwd: ctx.workspace.root,
          env: env.env,
          blank,
          outputByteLimit: BASH_OUTPUT_CAP,
          timeoutMs,
          signal: ctx.signal,
          timers,
          ...(ctx.callId ? { callId: ctx.callId } : {}),
        });
        if (ran.kind === 'failed') return { content: ran.message, isError: true };
        if (ran.kind === 'ran') return describeResult(ran.text, { ...ran.exit, timeoutMs });
      }
      const onUpdate = ctx.onUpdate && options.scrub ? scrubbed(ctx.onUpdate, options.scrub) : ctx.onUpdate;
      return runBash(plan, {
        ...run,
        timeoutMs,
        ctx: { ...ctx, ...(onUpdate ? { onUpdate } : {}) },
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
export function layoutFor(workspace: Workspace, env: NodeJS.ProcessEnv): SandboxLayout {
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
  command: string;
  host: ShellHost | undefined;
  /** The session's key scrubber, for what a shell moved into the background prints. */
  scrub: ((text: string) => string) | undefined;
}

function runBash(
  plan: Exclude<CommandPlan, { kind: 'refused' }>,
  { timeoutMs, ctx, env, timers, command, host, scrub }: RunOptions,
): Promise<ToolOutput> {
  ctx.signal.throwIfAborted();
  const shell = spawnShell(plan, { cwd: ctx.workspace.root, env, timers });
  // How long it ran in the foreground, so a job it becomes counts its time from its start, not the move.
  const began = performance.now();
  const output = new HeadTailBuffer(BASH_OUTPUT_CAP);
  const updates = lineSplitter(ctx.onUpdate);
  const onData = (chunk: string): void => {
    output.append(chunk);
    updates.push(chunk);
  };
  shell.onOutput(onData);
  return new Promise((resolve) => {
    let settled = false;
    const timer = timers.setTimeout(() => shell.stop('timeout'), timeoutMs);
    const onAbort = (): void => shell.stop('abort');
    ctx.signal.addEventListener('abort', onAbort, { once: true });
    const finish = (result: ToolOutput): void => {
      if (settled) return;
      settled = true;
      timers.clearTimeout(timer);
      ctx.signal.removeEventListener('abort', onAbort);
      unregister();
      updates.flush();
      resolve(result);
    };
    // Ctrl+B: the process goes on as a shell job; this call returns what it printed so far.
    const unregister =
      host?.foreground.register({
        command,
        ...(ctx.jobId ? { owner: ctx.jobId } : {}),
        detach: () => {
          if (settled) return undefined;
          shell.offOutput(onData);
          let id: string;
          try {
            id = host.adopt(shell, {
              command,
              ranForMs: Math.max(0, Math.round(performance.now() - began)),
              ...(ctx.jobId ? { owner: ctx.jobId } : {}),
              ...(scrub ? { scrub } : {}),
            });
          } catch {
            shell.onOutput(onData);
            return undefined;
          }
          const so = output.text().replace(/\n+$/, '') || '(no output yet)';
          finish({ content: `${so}\n\n${movedToBackground(id)}` });
          return id;
        },
      }) ?? (() => {});
    void shell.ended.then((exit) => {
      if (exit.spawnError) finish({ content: `bash could not be started: ${exit.spawnError}`, isError: true });
      else finish(describeResult(output.text(), { ...exit, timeoutMs }));
    });
  });
}

/** What a call moved into the background returns after its output so far. */
export function movedToBackground(id: string): string {
  return `moved to background as ${id}: it keeps running. Call agent_poll with id ${id} for what it prints from now on and its exit code, agent_stop to end it; you are told when it exits.`;
}

/** Starts the command as a shell job and returns at once. */
function startInBackground(
  plan: Exclude<CommandPlan, { kind: 'refused' }>,
  { ctx, env, timers, command, host, scrub }: Omit<RunOptions, 'timeoutMs'>,
): ToolOutput {
  if (!host)
    return { content: 'background shells are not available here; run the command without run_in_background', isError: true };
  // Its stdin stays open: agent_send writes to it.
  const shell = spawnShell(plan, { cwd: ctx.workspace.root, env, timers, input: true });
  let id: string;
  try {
    id = host.adopt(shell, { command, ...(ctx.jobId ? { owner: ctx.jobId } : {}), ...(scrub ? { scrub } : {}) });
  } catch (error) {
    shell.stop('abort');
    return { content: error instanceof Error ? error.message : String(error), isError: true };
  }
  return {
    content: `Started background shell ${id}. Call agent_poll with id ${id} for its output so far and, once it ended, its exit code; agent_stop to end it. You are told when it exits.`,
  };
}

function describeResult(
  text: string,
  { code, signal, stopped, reached, gaveUp, timeoutMs }: ShellExit & { timeoutMs: number },
): ToolOutput {
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
