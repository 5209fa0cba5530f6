import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { useMockProject } from '../support/e2e-project.js';
import { runCli } from '../support/run-cli.js';

const t = useMockProject();

describe('outrider --doctor', () => {
  it('prints which protection is active and exits 0 where bubblewrap works', async () => {
    const result = await runCli(['--doctor'], { cwd: t.project, env: t.env });
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const lines = result.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^bubblewrap: bubblewrap \d\S* at \/\S+\/bwrap, works$/);
    expect(lines[1]).toMatch(/^commands judged read-only .*: read-only sandbox \(/);
    expect(lines[2]).toMatch(/^git hardening for them: on /);
    expect(lines[3]).toBe(
      'other commands (approved, or allowed by yolo): run as written, no sandbox (sandbox off, from the default)',
    );
    expect(lines[4]).toBe('secrets: the provider key is kept from commands and scrubbed from tool output');
    expect(lines[5]).toBe(
      "provider key: ANTHROPIC_API_KEY taken out of outrider's environment block (/proc/<pid>/environ shows none)",
    );
    expect(t.mock.requests).toHaveLength(0);
  });

  it("reads the mode from the user's settings and the flag, not the project's file", async () => {
    mkdirSync(t.home, { recursive: true });
    writeFileSync(path.join(t.home, 'settings.json'), '{ "sandbox": "workspace-write" }');
    mkdirSync(path.join(t.project, '.outrider'));
    writeFileSync(path.join(t.project, '.outrider', 'settings.json'), '{ "sandbox": "off" }');
    const fromSettings = await runCli(['--doctor'], { cwd: t.project, env: t.env });
    expect(fromSettings.stdout).toContain(
      'workspace-write sandbox (the workspace, added dirs and temp writable; no network) (sandbox workspace-write, from your settings)',
    );
    const fromFlag = await runCli(['--doctor', '--sandbox', 'read-only'], { cwd: t.project, env: t.env });
    expect(fromFlag.stdout).toContain('read-only sandbox (sandbox read-only, from --sandbox)');
  });

  it('exits 1 and says why when bubblewrap is not there', async () => {
    // The binary is started by its absolute path: a PATH of an empty folder hides bwrap only.
    const result = await runCli(['--doctor'], { cwd: t.project, env: { ...t.env, PATH: t.project } });
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(/^bubblewrap: not usable: bwrap was not found on PATH$/m);
    expect(result.stdout).toMatch(/^commands judged read-only .*: the command check alone, no OS sandbox$/m);
  });
});

describe('--debug', () => {
  it('says at start-up which protection is active', async () => {
    t.mock.respond(() => ({ text: 'hi' }));
    const result = await runCli(['-p', 'hello', '--debug'], { cwd: t.project, env: t.env });
    expect(result.code).toBe(0);
    expect(result.stderr).toMatch(
      /^outrider: sandbox: bubblewrap \S+ works; commands judged read-only: read-only sandbox \+ git hardening; other commands: run as written, no sandbox$/m,
    );
  });
});
