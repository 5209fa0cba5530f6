import { describe, expect, it } from 'vitest';
import {
  type CommandPlan,
  type SandboxConfig,
  type SandboxLayout,
  type SandboxProbe,
  SECCOMP_FD,
  planCommand,
} from '../../../src/core/sandbox/plan.js';

const works: SandboxProbe = { ok: true, bwrap: '/usr/bin/bwrap', version: 'bubblewrap 0.8.0' };
const missing: SandboxProbe = { ok: false, reason: 'bwrap was not found on PATH' };
const layout: SandboxLayout = {
  workspace: { root: '/home/u/project', extraDirs: ['/srv/shared'] },
  home: '/home/u',
  tmpDirs: ['/tmp'],
  arch: 'x64',
};

const plan = (
  decision: 'read-only' | undefined,
  config: Partial<SandboxConfig>,
  probe: SandboxProbe,
  at: SandboxLayout = layout,
): CommandPlan =>
  planCommand({ command: 'ls -la', decision, config: { mode: 'off', network: false, ...config }, probe, layout: at });

/** The plan in short: what runs, and how it is fenced. */
function summary(p: CommandPlan): string {
  if (p.kind === 'refused') return 'refused';
  if (p.kind === 'direct') return `direct (${p.guard})`;
  return `${p.mode}${p.network ? ' +network' : ''}${p.seccomp ? ' +seccomp' : ''}`;
}

describe('planCommand: what wraps a command', () => {
  it.each<[string, 'read-only' | undefined, Partial<SandboxConfig>, SandboxProbe, string]>([
    // An auto-allowed command is always fenced read-only when bwrap works: the allow rests on it.
    ['auto-allowed, sandbox off', 'read-only', { mode: 'off' }, works, 'read-only +seccomp'],
    [
      'auto-allowed, workspace-write asked for the rest',
      'read-only',
      { mode: 'workspace-write', network: true },
      works,
      'read-only +seccomp',
    ],
    ['auto-allowed, no bwrap: the parser alone', 'read-only', { mode: 'off' }, missing, 'direct (parser-only)'],
    ['auto-allowed, no bwrap, a sandbox asked for', 'read-only', { mode: 'workspace-write' }, missing, 'direct (parser-only)'],
    // Someone approved it (or yolo): the setting decides.
    ['approved, off', undefined, { mode: 'off' }, works, 'direct (none)'],
    ['approved, off, no bwrap', undefined, { mode: 'off' }, missing, 'direct (none)'],
    ['approved, read-only', undefined, { mode: 'read-only' }, works, 'read-only +seccomp'],
    ['approved, read-only ignores network', undefined, { mode: 'read-only', network: true }, works, 'read-only +seccomp'],
    ['approved, workspace-write', undefined, { mode: 'workspace-write' }, works, 'workspace-write +seccomp'],
    [
      'approved, workspace-write with network',
      undefined,
      { mode: 'workspace-write', network: true },
      works,
      'workspace-write +network',
    ],
    // The user asked for a sandbox that cannot be had: nothing runs unfenced behind their back.
    ['approved, read-only, no bwrap', undefined, { mode: 'read-only' }, missing, 'refused'],
    ['approved, workspace-write, no bwrap', undefined, { mode: 'workspace-write' }, missing, 'refused'],
  ])('%s', (_name, decision, config, probe, expected) => {
    expect(summary(plan(decision, config, probe))).toBe(expected);
  });

  it('runs bash -c directly when nothing fences it', () => {
    expect(plan(undefined, {}, works)).toEqual({ kind: 'direct', file: 'bash', args: ['--norc', '-c', 'ls -la'], guard: 'none' });
  });

  it('says why it refused and how to go on', () => {
    const refused = plan(undefined, { mode: 'workspace-write' }, missing);
    expect(refused).toEqual({
      kind: 'refused',
      message:
        'bash did not run: the sandbox is set to workspace-write, but bubblewrap cannot be used here (bwrap was not found on PATH). ' +
        'Install bubblewrap (apt-get install bubblewrap), or ask the user to start outrider with --sandbox off.',
    });
  });

  it('read-only: the whole tree read-only, private /tmp, fresh /dev and /proc, no network, no capabilities', () => {
    const p = plan('read-only', {}, works);
    if (p.kind !== 'bwrap') throw new Error(summary(p));
    expect(p.file).toBe('/usr/bin/bwrap');
    // prettier-ignore
    expect(p.args).toEqual([
      '--ro-bind', '/', '/',
      '--dev', '/dev',
      '--proc', '/proc',
      '--tmpfs', '/tmp',
      '--unshare-net',
      '--unshare-pid',
      '--unshare-ipc',
      '--die-with-parent',
      '--cap-drop', 'ALL',
      '--seccomp', String(SECCOMP_FD),
      '--chdir', '/home/u/project',
      '--', 'bash', '--norc', '-c', 'ls -la',
    ]);
    expect(p.env).toEqual({ TMPDIR: '/tmp' });
  });

  it('read-only: what lives under /tmp (workspace, added dirs, HOME) is shown again, read-only, outer first', () => {
    const p = plan('read-only', {}, works, {
      workspace: { root: '/tmp/t1/home/project', extraDirs: ['/tmp/other', '/srv/x'] },
      home: '/tmp/t1/home',
      tmpDirs: ['/tmp'],
      arch: 'x64',
    });
    if (p.kind !== 'bwrap') throw new Error(summary(p));
    expect(mounts(p.args)).toEqual([
      '--ro-bind / /',
      '--dev /dev',
      '--proc /proc',
      '--tmpfs /tmp',
      '--ro-bind-try /tmp/other /tmp/other',
      '--ro-bind-try /tmp/t1/home /tmp/t1/home',
      '--ro-bind /tmp/t1/home/project /tmp/t1/home/project',
    ]);
  });

  it('workspace-write: temp dirs and the workspace writable, HOME read-only even inside a temp dir', () => {
    const p = plan(undefined, { mode: 'workspace-write' }, works, {
      workspace: { root: '/tmp/h/project', extraDirs: ['/srv/shared'] },
      home: '/tmp/h',
      tmpDirs: ['/tmp', '/var/tmp/me'],
      arch: 'x64',
    });
    if (p.kind !== 'bwrap') throw new Error(summary(p));
    expect(mounts(p.args)).toEqual([
      '--ro-bind / /',
      '--dev /dev',
      '--proc /proc',
      '--bind-try /tmp /tmp',
      '--bind-try /var/tmp/me /var/tmp/me',
      '--ro-bind-try /tmp/h /tmp/h',
      '--bind-try /srv/shared /srv/shared',
      '--bind /tmp/h/project /tmp/h/project',
    ]);
    expect(p.args).toContain('--unshare-net');
    expect(p.env).toEqual({});
  });

  it('workspace-write with network shares the network and opens local sockets', () => {
    const p = plan(undefined, { mode: 'workspace-write', network: true }, works);
    if (p.kind !== 'bwrap') throw new Error(summary(p));
    expect(p.args).not.toContain('--unshare-net');
    expect(p.args).not.toContain('--seccomp');
    expect(p.seccomp).toBeUndefined();
  });

  it('on an architecture without a socket filter, the rest of the fence still stands', () => {
    const p = plan('read-only', {}, works, { ...layout, arch: 'riscv64' });
    if (p.kind !== 'bwrap') throw new Error(summary(p));
    expect(p.seccomp).toBeUndefined();
    expect(p.args).not.toContain('--seccomp');
    expect(p.args).toContain('--unshare-net');
  });
});

/** The mount operations of a bwrap command line, in order, one string each. */
function mounts(args: string[]): string[] {
  const arity: Record<string, number> = {
    '--ro-bind': 2,
    '--ro-bind-try': 2,
    '--bind': 2,
    '--bind-try': 2,
    '--dev': 1,
    '--proc': 1,
    '--tmpfs': 1,
  };
  const out: string[] = [];
  for (let i = 0; i < args.length && args[i] !== '--'; i++) {
    const n = arity[args[i]!];
    if (n === undefined) continue;
    out.push(args.slice(i, i + n + 1).join(' '));
    i += n;
  }
  return out;
}
