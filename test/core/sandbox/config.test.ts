import { describe, expect, it } from 'vitest';
import { parseSettings } from '../../../src/core/config/settings.js';
import { resolveSettings } from '../../../src/core/config/project-trust.js';
import { protectionLine, sandboxConfigFrom, sandboxWarnings } from '../../../src/core/sandbox/config.js';
import type { SandboxProbe } from '../../../src/core/sandbox/plan.js';
import { sessionSetupFromCli } from '../../../src/start/session-setup.js';

const works: SandboxProbe = { ok: true, bwrap: '/usr/bin/bwrap', version: 'bubblewrap 0.8.0' };
const missing: SandboxProbe = { ok: false, reason: 'bwrap was not found on PATH' };

describe('the sandbox settings', () => {
  it('are two keys of the settings file, checked like the others', () => {
    expect(parseSettings('{ "sandbox": "workspace-write", "sandboxNetwork": true }', 'f')).toEqual({
      sandbox: 'workspace-write',
      sandboxNetwork: true,
    });
    expect(() => parseSettings('{ "sandbox": "none" }', 'f')).toThrow(
      'f: sandbox: expected one of "read-only", "workspace-write", "off", got "none"',
    );
    expect(() => parseSettings('{ "sandboxNetwork": "yes" }', 'f')).toThrow(
      'f: sandboxNetwork: expected true or false, got "yes"',
    );
  });

  it('come from the flags, then the user settings, else off', () => {
    expect(sandboxConfigFrom({ user: {}, flags: {} })).toEqual({ mode: 'off', network: false, source: 'default' });
    expect(sandboxConfigFrom({ user: { sandbox: 'read-only', sandboxNetwork: true }, flags: {} })).toEqual({
      mode: 'read-only',
      network: true,
      source: 'user settings',
    });
    expect(sandboxConfigFrom({ user: { sandbox: 'read-only' }, flags: { sandbox: 'off' } })).toEqual({
      mode: 'off',
      network: false,
      source: 'flag',
    });
  });

  it("need the folder's trust in a project's file, unless they make the sandbox stricter", () => {
    const resolve = (project: object, user: object = {}, trusted = false) =>
      resolveSettings({ defaults: {}, user, project, flags: {} }, { trusted });
    expect(resolve({ sandbox: 'off', model: 'm' }, { sandbox: 'read-only' }).ignored).toEqual(['sandbox']);
    expect(resolve({ sandbox: 'off' }, { sandbox: 'read-only' }, true).settings.sandbox).toBe('off');
    expect(resolve({ sandbox: 'read-only' }, { sandbox: 'workspace-write' }).settings.sandbox).toBe('read-only');
    expect(resolve({ sandboxNetwork: true }).ignored).toEqual(['sandboxNetwork']);
    expect(resolve({ sandboxNetwork: false }, { sandboxNetwork: true }).settings.sandboxNetwork).toBe(false);
  });

  it('--sandbox is a flag layer; a probe already made is handed to the session', () => {
    const setup = sessionSetupFromCli(
      { outputFormat: 'text', waitAgents: true, sandbox: 'workspace-write', sandboxProbe: works },
      { env: {}, cwd: '/p', headless: true },
    );
    expect(setup.flags.sandbox).toBe('workspace-write');
    expect(setup.sandboxProbe).toBe(works);
  });
});

describe('what the user is told', () => {
  it('warns once when bubblewrap cannot be used, more when a sandbox was asked for', () => {
    expect(sandboxWarnings({ mode: 'off', network: false }, works)).toEqual([]);
    expect(sandboxWarnings({ mode: 'off', network: false }, missing)).toEqual([
      'no OS sandbox: bwrap was not found on PATH. Commands judged read-only run on the command check alone; install bubblewrap (apt-get install bubblewrap) to fence them.',
    ]);
    expect(sandboxWarnings({ mode: 'off', network: false }, { ok: false, reason: 'this is darwin', unsupported: true })).toEqual([
      'no OS sandbox: this is darwin. Commands judged read-only run on the command check alone.',
    ]);
    expect(sandboxWarnings({ mode: 'read-only', network: false }, missing)[0]).toMatch(
      / With the sandbox set to read-only, commands that need approval will not run; use --sandbox off to run them unfenced\.$/,
    );
  });

  it('says in one line what protects commands (--debug)', () => {
    expect(protectionLine({ mode: 'off', network: false }, works)).toBe(
      'sandbox: bubblewrap 0.8.0 works; commands judged read-only: read-only sandbox + git hardening; other commands: run as written, no sandbox',
    );
    expect(protectionLine({ mode: 'workspace-write', network: false }, missing)).toBe(
      'sandbox: no bubblewrap (bwrap was not found on PATH); commands judged read-only: command check only + git hardening; ' +
        'other commands: refused (the sandbox is set to workspace-write and bubblewrap is not usable)',
    );
  });
});
