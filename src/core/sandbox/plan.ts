/**
 * What wraps a bash command: a pure function of the session's sandbox choice, the permission
 * decision for the call and whether bubblewrap works here. The bwrap command line it builds
 * makes the whole tree read-only (bar what the mode opens), gives the command fresh /dev and
 * /proc, its own pid namespace (so nothing it starts outlives it) and no network.
 */
import path from 'node:path';
import type { Workspace } from '../platform/paths.js';
import { isWithin } from '../platform/paths.js';
import { seccompProgram } from './seccomp.js';

/** What bash may write, for commands someone approved (the `sandbox` setting, `--sandbox`). */
export type SandboxMode = 'read-only' | 'workspace-write' | 'off';
export const SANDBOX_MODES: readonly SandboxMode[] = ['read-only', 'workspace-write', 'off'];

/** The session's sandbox choice, read from the user's settings and flags only. */
export interface SandboxConfig {
  mode: SandboxMode;
  /** workspace-write only: share the network (and with it local sockets). */
  network: boolean;
}

/** Whether bubblewrap works here: found once per session (probe.ts). `unsupported`: not Linux, nothing to install. */
export type SandboxProbe = { ok: true; bwrap: string; version: string } | { ok: false; reason: string; unsupported?: true };

/** Where things are on this machine, for the mounts. */
export interface SandboxLayout {
  workspace: Workspace;
  /** HOME's real path: readable, never writable unless it is in the workspace. */
  home?: string;
  /** Real paths of the temp dirs (/tmp, TMPDIR): private in read-only, writable in workspace-write. */
  tmpDirs: string[];
  /** `process.arch`: picks the socket filter. */
  arch: string;
}

/** bwrap reads the seccomp program from this descriptor (the spawn's fourth stdio entry). */
export const SECCOMP_FD = 3;

/** How one command runs. */
export type CommandPlan =
  | {
      kind: 'direct';
      file: 'bash';
      args: string[];
      /** `parser-only`: allowed because it was judged read-only, with no OS sandbox behind that. */
      guard: 'none' | 'parser-only';
    }
  | {
      kind: 'bwrap';
      file: string;
      args: string[];
      mode: 'read-only' | 'workspace-write';
      network: boolean;
      /** Written to SECCOMP_FD when set. */
      seccomp?: Buffer;
      /** Set over the command's environment. */
      env: Record<string, string>;
    }
  | { kind: 'refused'; message: string };

export interface PlanInput {
  command: string;
  /** The gate's `sandbox`: set when the call runs only because the policy judged it read-only. */
  decision: 'read-only' | undefined;
  config: SandboxConfig;
  probe: SandboxProbe;
  layout: SandboxLayout;
}

/**
 * bash's arguments before the command. `--norc`: a background shell's stdin is a socket (Node's
 * pipes are socket pairs), and bash run with a socket on stdin and SHLVL unset takes itself for
 * a shell started by sshd and sources ~/.bashrc, whose pyenv or nvm set-up then runs (or waits
 * on a lock) before every such command.
 */
const BASH = ['--norc', '-c'];

/** The fence a command gets: one judged read-only is fenced read-only whatever the setting says for the rest. */
export function fenceFor(decision: PlanInput['decision'], config: SandboxConfig): SandboxConfig['mode'] {
  return decision === 'read-only' ? 'read-only' : config.mode;
}

export function planCommand({ command, decision, config, probe, layout }: PlanInput): CommandPlan {
  const direct = (guard: 'none' | 'parser-only'): CommandPlan => ({
    kind: 'direct',
    file: 'bash',
    args: [...BASH, command],
    guard,
  });
  const mode = fenceFor(decision, config);
  if (mode === 'off') return direct('none');
  if (!probe.ok) {
    // The user's approval stands behind an approved command; the parser alone behind an auto-allowed one.
    if (decision === 'read-only') return direct('parser-only');
    return {
      kind: 'refused',
      message:
        `bash did not run: the sandbox is set to ${mode}, but bubblewrap cannot be used here (${probe.reason}). ` +
        `${probe.unsupported ? 'Ask' : 'Install bubblewrap (apt-get install bubblewrap), or ask'} the user to start outrider with --sandbox off.`,
    };
  }
  const network = mode === 'workspace-write' && config.network;
  // Local sockets count as network: with the network cut, a daemon's socket must not be a way out.
  const seccomp = network ? undefined : seccompProgram(layout.arch);
  return {
    kind: 'bwrap',
    file: probe.bwrap,
    args: [
      ...mounts(mode, layout),
      ...(network ? [] : ['--unshare-net']),
      // Its own pid namespace: when bash exits, everything it started goes too (setsid or not),
      // and /proc shows no process outside, so no parent's environment can be read.
      '--unshare-pid',
      '--unshare-ipc',
      // Node started bwrap in a new session (detached), so the command has no terminal to inject
      // into, and the process group the tool stops holds bwrap and bash; this covers outrider's own death.
      '--die-with-parent',
      // bwrap run by root keeps its capabilities unless told otherwise, and they would undo the mounts.
      '--cap-drop',
      'ALL',
      ...(seccomp ? ['--seccomp', String(SECCOMP_FD)] : []),
      '--chdir',
      layout.workspace.root,
      '--',
      'bash',
      ...BASH,
      command,
    ],
    mode,
    network,
    ...(seccomp ? { seccomp } : {}),
    // Programs that honour TMPDIR write to the private /tmp rather than fail on a read-only one.
    env: mode === 'read-only' ? { TMPDIR: '/tmp' } : {},
  };
}

/**
 * The mounts, later ones over earlier ones: the tree read-only, then per mode what it opens.
 * Directories are mounted outer first, so an inner one (the workspace in HOME) wins.
 */
function mounts(mode: 'read-only' | 'workspace-write', layout: SandboxLayout): string[] {
  const { workspace, home } = layout;
  const tmpDirs = layout.tmpDirs.filter((dir) => dir !== path.parse(dir).root);
  const args = ['--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc'];
  const bind = (flag: string, dirs: string[]): void => {
    for (const dir of outerFirst(dirs)) args.push(dir === workspace.root ? flag.replace(/-try$/, '') : flag, dir, dir);
  };
  if (mode === 'read-only') {
    args.push('--tmpfs', '/tmp');
    // The private /tmp hides whatever lived there; the command still reads the workspace and HOME.
    const hidden = [workspace.root, ...workspace.extraDirs, ...(home ? [home] : [])].filter((dir) => isWithin('/tmp', dir));
    bind('--ro-bind-try', unique(hidden));
  } else {
    bind('--bind-try', unique(tmpDirs));
    const homeInTmp = home && !isWithinAny(workspaceDirs(workspace), home) && isWithinAny(tmpDirs, home);
    if (homeInTmp) bind('--ro-bind-try', [home]);
    bind('--bind-try', unique(workspaceDirs(workspace)));
  }
  return args;
}

const workspaceDirs = (workspace: Workspace): string[] => [workspace.root, ...workspace.extraDirs];
const isWithinAny = (dirs: string[], target: string): boolean => dirs.some((dir) => isWithin(dir, target));
const unique = (dirs: string[]): string[] => [...new Set(dirs)];
const depth = (dir: string): number => dir.split(path.sep).filter(Boolean).length;
const outerFirst = (dirs: string[]): string[] => [...dirs].sort((a, b) => depth(a) - depth(b));
