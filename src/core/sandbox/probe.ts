/**
 * Finds out, once per session, whether bubblewrap works here: bwrap can exist and still fail
 * (a container without user namespaces, a seccomp profile that forbids mount). The probe runs
 * the read-only sandbox exactly as a command would get it and checks that it holds.
 */
import { execFile } from 'node:child_process';
import type { Workspace } from '../platform/paths.js';
import { findExecutable } from '../platform/find-executable.js';
import { isWithin, realPathOf } from '../platform/paths.js';
import { signalGroup } from '../platform/process-group.js';
import { hardenedPath } from '../platform/read-only-sandbox.js';
import { type SandboxProbe, planCommand } from './plan.js';
import { spawnPlan } from './spawn.js';

const PROBE_TIMEOUT_MS = 10_000;
const OK = 'outrider-sandbox-ok';
/** Run inside: nothing writable where it should not be, no capabilities left; says what failed. */
const CHECK = [
  'if [ -w / ]; then echo "/ is writable"',
  'elif [ -w "$PWD" ]; then echo "the workspace is writable"',
  "elif ! grep -Eq '^CapEff:[[:space:]]*0+$' /proc/self/status; then echo 'capabilities are left'",
  `else echo ${OK}; fi`,
].join('; ');

export interface ProbeOptions {
  workspace: Workspace;
  /** Whose PATH to search (the environment bash runs with). */
  env?: NodeJS.ProcessEnv;
  platform?: NodeJS.Platform;
  arch?: string;
  /**
   * Also run `bwrap --version` for the probe's `version` (default true; else it says
   * "bubblewrap"). Only --doctor and --debug show it: a session skips it, one process start
   * fewer on the way to the first prompt.
   */
  version?: boolean;
  /** Ends the probe (its processes killed): a session that closes does not wait for a stuck bwrap. */
  signal?: AbortSignal;
}

export async function probeSandbox(options: ProbeOptions): Promise<SandboxProbe> {
  const { workspace } = options;
  const env = options.env ?? process.env;
  const platform = options.platform ?? process.platform;
  if (platform !== 'linux') {
    return { ok: false, reason: `the OS sandbox uses bubblewrap, which needs Linux; this is ${platform}`, unsupported: true };
  }
  // Never a bwrap the repository could have planted (node_modules/.bin, ./bin on PATH).
  const bwrap = await findExecutable('bwrap', hardenedPath(env.PATH, workspace));
  if (!bwrap) return { ok: false, reason: 'bwrap was not found on PATH' };
  if ([workspace.root, ...workspace.extraDirs].some((dir) => isWithin(dir, realPathOf(bwrap)))) {
    return { ok: false, reason: `${bwrap} lies in the workspace` };
  }
  const plan = planCommand({
    command: CHECK,
    decision: 'read-only',
    config: { mode: 'off', network: false },
    probe: { ok: true, bwrap, version: '' },
    layout: { workspace, tmpDirs: ['/tmp'], arch: options.arch ?? process.arch },
  });
  if (plan.kind !== 'bwrap') return { ok: false, reason: 'no sandbox plan' };
  // Both at once: neither needs the other's answer, and each is a process start to wait for.
  const [version, checked] = await Promise.all([
    options.version === false ? ({ ok: true, stdout: '' } as const) : run(bwrap, ['--version'], env, options.signal),
    runPlan(plan, workspace.root, { PATH: hardenedPath(env.PATH, workspace) }, options.signal),
  ]);
  if (!version.ok) return { ok: false, reason: `${bwrap} --version failed: ${version.why}` };
  if (!checked.ok) return { ok: false, reason: `${bwrap} is there but the sandbox does not start: ${checked.why}` };
  const held = checked.stdout.trim();
  if (held !== OK)
    return { ok: false, reason: `${bwrap} starts, but the sandbox does not hold: ${held || 'the check printed nothing'}` };
  return { ok: true, bwrap, version: version.stdout.trim() || 'bubblewrap' };
}

/**
 * A session's probe, run the first time a command needs a fence, then the same answer to every
 * caller: a bwrap start costs a process and ~6 ms of CPU, which a session that runs no command
 * (a -p run that reads and edits, most sub-agents) never pays; the first command waits the ~10 ms.
 * `found` hears the answer once. Never rejects: an unexpected failure is a sandbox that does not
 * work. No `bwrap --version` (only --doctor and --debug show it). `signal` ends a probe still running.
 */
export function sessionProbe(
  workspace: Workspace,
  signal: AbortSignal,
  found: (probe: SandboxProbe) => void,
): () => Promise<SandboxProbe> {
  let probing: Promise<SandboxProbe> | undefined;
  return () =>
    (probing ??= probeSandbox({ workspace, version: false, signal })
      .catch((error: unknown): SandboxProbe => ({
        ok: false,
        reason: `the sandbox probe failed: ${error instanceof Error ? error.message : String(error)}`,
      }))
      .then((probe) => {
        found(probe);
        return probe;
      }));
}

type Ran = { ok: true; stdout: string } | { ok: false; why: string };

function run(file: string, args: string[], env: NodeJS.ProcessEnv, signal: AbortSignal | undefined): Promise<Ran> {
  return new Promise((resolve) => {
    const options = { env, timeout: PROBE_TIMEOUT_MS, encoding: 'utf8' as const, ...(signal ? { signal } : {}) };
    execFile(file, args, options, (error, stdout, stderr) => {
      resolve(error ? { ok: false, why: firstLine(stderr) ?? error.message } : { ok: true, stdout });
    });
  });
}

function runPlan(
  plan: Parameters<typeof spawnPlan>[0],
  cwd: string,
  env: NodeJS.ProcessEnv,
  signal: AbortSignal | undefined,
): Promise<Ran> {
  return new Promise((resolve) => {
    const child = spawnPlan(plan, { cwd, env });
    let stdout = '';
    let stderr = '';
    const kill = () => {
      if (child.pid !== undefined) signalGroup(child.pid, 'SIGKILL');
    };
    const timer = setTimeout(kill, PROBE_TIMEOUT_MS);
    if (signal?.aborted) kill();
    signal?.addEventListener('abort', kill, { once: true });
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    const settle = (ran: Ran) => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', kill);
      resolve(ran);
    };
    child.on('error', (error) => settle({ ok: false, why: error.message }));
    child.on('close', (code, killedBy) => {
      if (code === 0) settle({ ok: true, stdout });
      else if (signal?.aborted) settle({ ok: false, why: 'the session ended before the probe did' });
      else settle({ ok: false, why: firstLine(stderr) ?? (killedBy ? `killed by ${killedBy}` : `exit code ${code}`) });
    });
  });
}

function firstLine(text: string): string | undefined {
  return text
    .split('\n')
    .find((line) => line.trim() !== '')
    ?.trim();
}
