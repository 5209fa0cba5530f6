import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, utimesSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { prepareCall, runPreparedCall } from '../../../src/core/loop/tool-runner.js';
import { ApprovalGate } from '../../../src/core/permissions/approvals.js';
import { toolGate } from '../../../src/core/permissions/tool-gate.js';
import type { PermissionMode } from '../../../src/core/permissions/types.js';
import { bashTool } from '../../../src/core/tools/bash.js';
import type { ToolOutput, Workspace } from '../../../src/core/tools/define.js';
import { makeWorkspace } from '../../../src/core/platform/paths.js';
import { readOnlySandboxEnv } from '../../../src/core/platform/read-only-sandbox.js';
import { ToolRegistry, executeTool } from '../../../src/core/tools/registry.js';
import { type TempDir, tempDir } from '../tools/harness.js';

// A hostile repository: its own config (which the model may have written, or which came with
// the checkout) names programs that git runs during status, diff, log, show and blame. Every
// program here only touches a marker file outside the workspace. Each scenario first shows
// that the program really runs when the user approved the command (so the fixture is truly
// hostile), then that it does not run on the auto-allowed path.

let repo: TempDir;
let outside: TempDir;
let workspace: Workspace;
let armCount = 0;

function git(...args: string[]): string {
  return execFileSync('git', args, {
    cwd: repo.root,
    encoding: 'utf8',
    env: { ...process.env, GIT_CONFIG_NOSYSTEM: '1' },
  });
}

function initRepo(dir: string): void {
  execFileSync('git', ['init', '-q', dir]);
  for (const [key, value] of [
    ['user.email', 'a@example.invalid'],
    ['user.name', 'A'],
    ['commit.gpgSign', 'false'],
  ]) {
    execFileSync('git', ['-C', dir, 'config', key, value]);
  }
}

beforeEach(() => {
  repo = tempDir('outrider-hostile-repo-');
  outside = tempDir('outrider-outside-');
  workspace = makeWorkspace(repo.root);
  initRepo(repo.root);
  repo.write('a.txt', 'hello\n');
  git('add', 'a.txt');
  git('commit', '-qm', 'one');
  repo.write('a.txt', 'hello\nworld\n');
  git('commit', '-qam', 'two');
});
afterEach(() => {
  repo.cleanup();
  outside.cleanup();
});

/** A marker path outside the workspace and a shell snippet that creates it. */
function marker(name: string): { file: string; touch: string } {
  const file = path.join(outside.root, `ran-${name}`);
  return { file, touch: `touch '${file}'` };
}

/** An executable script outside the workspace (for keys git runs without a shell). */
function script(name: string, body: string): string {
  const file = outside.write(name, `#!/bin/sh\n${body}\n`);
  chmodSync(file, 0o755);
  return file;
}

function hasRg(): boolean {
  try {
    execFileSync('rg', ['--version']);
    return true;
  } catch {
    return false;
  }
}

/** Makes a.txt look changed to the index (same content, new mtime), so git hashes it again. */
function restat(): void {
  armCount++;
  const file = path.join(repo.root, 'a.txt');
  const when = Date.now() / 1000 + 60 * armCount;
  utimesSync(file, when, when);
}

/** Adds a submodule `sm` (from a source repository outside); returns a git runner inside it. */
function addSubmodule(): (...args: string[]) => void {
  const source = path.join(outside.root, 'sub-source');
  initRepo(source);
  writeFileSync(path.join(source, 's.txt'), 's\n');
  execFileSync('git', ['-C', source, 'add', 's.txt']);
  execFileSync('git', ['-C', source, 'commit', '-qm', 's']);
  git('-c', 'protocol.file.allow=always', 'submodule', 'add', '-q', source, 'sm');
  git('commit', '-qm', 'submodule');
  const sm = (...args: string[]): void => {
    execFileSync('git', ['-C', path.join(repo.root, 'sm'), ...args]);
  };
  sm('config', 'user.email', 'a@example.invalid');
  sm('config', 'user.name', 'A');
  return sm;
}

/** A commit object with a signature header, for the signature checks to find. */
function signedCommit(armor: 'PGP SIGNATURE' | 'SSH SIGNATURE'): void {
  const tree = git('rev-parse', 'HEAD^{tree}').trim();
  const parent = git('rev-parse', 'HEAD').trim();
  const body =
    `tree ${tree}\nparent ${parent}\nauthor A <a@example.invalid> 1 +0000\ncommitter A <a@example.invalid> 1 +0000\n` +
    `gpgsig -----BEGIN ${armor}-----\n U0lH\n -----END ${armor}-----\n\nsigned\n`;
  const file = outside.write('commit.txt', body);
  const id = git('hash-object', '-t', 'commit', '-w', file).trim();
  git('update-ref', 'refs/heads/signed', id);
}

/** Runs a command through the bash tool, sandboxed or as if the user had approved it. */
function bash(command: string, options: { sandboxed: boolean }): Promise<ToolOutput> {
  return executeTool(
    bashTool,
    { command },
    {
      signal: new AbortController().signal,
      workspace,
      ...(options.sandboxed ? { sandbox: 'read-only' as const } : {}),
    },
  );
}

interface Scenario {
  name: string;
  command: string;
  /** Makes the repository hostile; returns the marker its programs create (and the command, when setup decides it). */
  setup: () => { file: string; command?: string };
  /** Runs before each command, for programs that run only when git sees a change. */
  arm?: () => void;
}

const SCENARIOS: Scenario[] = [
  {
    name: 'core.fsmonitor on git status',
    command: 'git status',
    setup: () => {
      const m = marker('fsmonitor');
      git('config', 'core.fsmonitor', `${m.touch}; true`);
      return { file: m.file };
    },
  },
  {
    name: 'a post-index-change hook in .git/hooks on git status',
    command: 'git status',
    arm: restat,
    setup: () => {
      const m = marker('hook');
      writeFileSync(path.join(repo.root, '.git', 'hooks', 'post-index-change'), `#!/bin/sh\n${m.touch}\n`, { mode: 0o755 });
      return { file: m.file };
    },
  },
  {
    name: 'core.hooksPath pointing at the workspace on git status',
    command: 'git status',
    arm: restat,
    setup: () => {
      const m = marker('hooks-path');
      const hooks = path.join(repo.root, 'my-hooks');
      mkdirSync(hooks);
      writeFileSync(path.join(hooks, 'post-index-change'), `#!/bin/sh\n${m.touch}\n`, { mode: 0o755 });
      git('config', 'core.hooksPath', hooks);
      return { file: m.file };
    },
  },
  {
    name: 'diff.external on git diff',
    command: 'git diff HEAD~1',
    setup: () => {
      const m = marker('external');
      git('config', 'diff.external', `${m.touch}; true`);
      return { file: m.file };
    },
  },
  {
    name: 'diff.<driver>.command on git diff',
    command: 'git diff HEAD~1',
    setup: () => {
      const m = marker('driver-command');
      repo.write('.gitattributes', '*.txt diff=evil\n');
      git('config', 'diff.evil.command', `${m.touch}; true`);
      return { file: m.file };
    },
  },
  ...['git log -p', 'git show HEAD', 'git blame a.txt', 'git diff HEAD~1 --no-ext-diff'].map((command): Scenario => ({
    name: `diff.<driver>.textconv on ${command}`,
    command,
    setup: () => {
      const m = marker('textconv');
      repo.write('.gitattributes', '*.txt diff=evil\n');
      git('config', 'diff.evil.textconv', `${m.touch}; cat`);
      return { file: m.file };
    },
  })),
  ...(['clean', 'process'] as const).flatMap((key) =>
    ['git status', 'git diff'].map((command): Scenario => ({
      name: `filter.<driver>.${key} on ${command}`,
      command,
      arm: restat,
      setup: () => {
        const m = marker(`filter-${key}`);
        repo.write('.gitattributes', '*.txt filter=evil\n');
        git('config', `filter.evil.${key}`, `${m.touch}; cat`);
        git('config', 'filter.evil.required', 'true');
        return { file: m.file };
      },
    })),
  ),
  {
    name: 'filter.<driver>.smudge on git diff with an external diff',
    command: 'git diff HEAD~1',
    setup: () => {
      const m = marker('smudge');
      repo.write('.gitattributes', '*.txt filter=evil diff=evil\n');
      git('config', 'filter.evil.smudge', `${m.touch}; cat`);
      git('config', 'diff.evil.command', 'true');
      return { file: m.file };
    },
  },
  {
    name: 'log.showSignature with gpg.program on git log',
    command: 'git log -1 signed',
    setup: () => {
      const m = marker('gpg');
      signedCommit('PGP SIGNATURE');
      git('config', 'log.showSignature', 'true');
      git('config', 'gpg.program', script('gpg', `${m.touch}\nexit 1`));
      return { file: m.file };
    },
  },
  {
    name: 'format.pretty with %G? and gpg.openpgp.program on git log',
    command: 'git log -1 signed',
    setup: () => {
      const m = marker('gpg-format');
      signedCommit('PGP SIGNATURE');
      git('config', 'format.pretty', '%G? %s');
      git('config', 'gpg.openpgp.program', script('gpg2', `${m.touch}\nexit 1`));
      return { file: m.file };
    },
  },
  {
    name: 'gpg.ssh.program on git log',
    command: 'git log -1 signed',
    setup: () => {
      const m = marker('gpg-ssh');
      signedCommit('SSH SIGNATURE');
      git('config', 'log.showSignature', 'true');
      git('config', 'gpg.ssh.allowedSignersFile', outside.write('signers', ''));
      git('config', 'gpg.ssh.program', script('ssh-keygen', `${m.touch}\nexit 1`));
      return { file: m.file };
    },
  },
  {
    name: 'a textconv driver in a file the config includes, on git log -p',
    command: 'git log -p',
    setup: () => {
      const m = marker('include');
      repo.write('.gitattributes', '*.txt diff=inc\n');
      repo.write('tools.gitconfig', `[diff "inc"]\n\ttextconv = "${m.touch}; cat"\n`);
      git('config', 'include.path', '../tools.gitconfig');
      return { file: m.file };
    },
  },
  {
    name: 'a textconv driver in config.worktree, on git log -p',
    command: 'git log -p',
    setup: () => {
      const m = marker('worktree-config');
      repo.write('.gitattributes', '*.txt diff=wt\n');
      git('config', 'extensions.worktreeConfig', 'true');
      git('config', '--worktree', 'diff.wt.textconv', `${m.touch}; cat`);
      return { file: m.file };
    },
  },
  {
    name: 'a lazy fetch over ext:: in a partial clone, on git show',
    command: 'git show <the missing blob>',
    setup: () => {
      const m = marker('lazy-ext');
      const missing = git('hash-object', '--no-filters', outside.write('blob', 'missing\n')).trim();
      git('config', 'core.repositoryformatversion', '1');
      git('config', 'extensions.partialClone', 'origin');
      git('config', 'remote.origin.promisor', 'true');
      git('config', 'remote.origin.url', `ext::sh -c touch% ${m.file}`);
      git('config', 'protocol.ext.allow', 'always');
      return { file: m.file, command: `git show ${missing}` };
    },
  },
  {
    name: 'core.sshCommand in a lazy fetch, on git show',
    command: 'git show <the missing blob>',
    setup: () => {
      const m = marker('lazy-ssh');
      const missing = git('hash-object', '--no-filters', outside.write('blob', 'missing\n')).trim();
      git('config', 'core.repositoryformatversion', '1');
      git('config', 'extensions.partialClone', 'origin');
      git('config', 'remote.origin.promisor', 'true');
      git('config', 'remote.origin.url', 'ssh://example.invalid/x');
      git('config', 'protocol.ssh.allow', 'always');
      git('config', 'core.sshCommand', `${m.touch}; false`);
      return { file: m.file, command: `git show ${missing}` };
    },
  },
  ...['git status', 'git diff'].map((command): Scenario => ({
    name: `a submodule's own fsmonitor and clean filter, on ${command}`,
    command,
    setup: () => {
      const m = marker('submodule');
      const sm = addSubmodule();
      writeFileSync(path.join(repo.root, 'sm', '.gitattributes'), '*.txt filter=evil\n');
      sm('config', 'filter.evil.clean', `${m.touch}; cat`);
      sm('config', 'core.fsmonitor', `${m.touch}; true`);
      return { file: m.file };
    },
    arm: () => {
      armCount++;
      const file = path.join(repo.root, 'sm', 's.txt');
      const when = Date.now() / 1000 + 60 * armCount;
      utimesSync(file, when, when);
    },
  })),
  ...['git log -p -1', 'git show', 'git diff HEAD~1 --submodule=diff'].map((command): Scenario => ({
    name: `a submodule's own diff.external through diff.submodule=diff, on ${command}`,
    command,
    setup: () => {
      const m = marker('submodule-diff');
      const sm = addSubmodule();
      writeFileSync(path.join(repo.root, 'sm', 's.txt'), 's\nmore\n');
      sm('commit', '-qam', 'more');
      sm('config', 'diff.external', `${m.touch}; true`);
      git('commit', '-qam', 'bump the submodule');
      git('config', 'diff.submodule', 'diff');
      return { file: m.file };
    },
  })),
];

describe('auto-allowed git runs with the repository’s programs switched off', () => {
  it.each(SCENARIOS)('$name', async ({ command, setup, arm }) => {
    const { file, command: decided } = setup();
    const run = decided ?? command;

    arm?.();
    await bash(run, { sandboxed: false });
    expect(existsSync(file), `the fixture is not hostile: ${run} did not run its program when approved`).toBe(true);
    execFileSync('rm', ['-f', file]);

    arm?.();
    const out = await bash(run, { sandboxed: true });
    expect(existsSync(file), `${run} ran the repository's program: ${out.content}`).toBe(false);
  });
});

describe('config the model can write is not trusted, whatever its scope', () => {
  it('a "global" config inside the workspace (HOME is the workspace) cannot run a filter', async () => {
    const m = marker('global-in-workspace');
    const globalFile = repo.write('.gitconfig', `[filter "evil"]\n\tclean = "${m.touch}; cat"\n\trequired = true\n`);
    repo.write('.gitattributes', '*.txt filter=evil\n');
    const base = { ...process.env, GIT_CONFIG_GLOBAL: globalFile };
    const env = await readOnlySandboxEnv({ workspace, base, signal: new AbortController().signal });
    if (!env.ok) throw new Error(env.error);
    restat();
    execFileSync('bash', ['-c', 'git status >/dev/null 2>&1'], { cwd: repo.root, env: env.env });
    expect(existsSync(m.file)).toBe(false);
    restat();
    execFileSync('bash', ['-c', 'git status >/dev/null 2>&1'], { cwd: repo.root, env: base });
    expect(existsSync(m.file), 'the fixture should run its filter without the sandbox').toBe(true);
  });
});

describe('ordinary git still works in the sandbox', () => {
  it('status, diff, log -p, show, blame and branch show what they always did', async () => {
    repo.write('a.txt', 'hello\nworld\nagain\n');
    repo.write('new.txt', 'n\n');
    const status = await bash('git status --short', { sandboxed: true });
    expect(status).toEqual({ content: ' M a.txt\n?? new.txt', isError: false });
    const diff = await bash('git diff', { sandboxed: true });
    expect(diff.content).toContain('@@ -1,2 +1,3 @@\n hello\n world\n+again');
    const log = await bash('git log -p --format=%s', { sandboxed: true });
    expect(log.content).toMatch(/^two\n\ndiff --git a\/a.txt b\/a.txt\n[\s\S]*\+world[\s\S]*one\n/);
    expect((await bash('git show --stat --format=%s HEAD', { sandboxed: true })).content).toMatch(/^two\n\n a.txt \| 1 \+/);
    expect((await bash('git blame -s a.txt | wc -l', { sandboxed: true })).content.trim()).toBe('3');
    expect((await bash('git branch --show-current', { sandboxed: true })).content).toMatch(/^(master|main)$/);
  });

  it('in a hostile repository: textconv shows the raw file, an external diff says how to see the diff', async () => {
    const m = marker('usable');
    repo.write('.gitattributes', '*.txt diff=evil\n');
    git('config', 'diff.evil.textconv', `${m.touch}; echo CONVERTED`);
    git('config', 'diff.evil.command', `${m.touch}; true`);
    const log = await bash('git log -p -1 --format=%s', { sandboxed: true });
    expect(log.content).toContain('+world');
    expect(log.content).not.toContain('CONVERTED');
    const diff = await bash('git diff HEAD~1', { sandboxed: true });
    expect(diff.content).toContain("this repository's git config sets an external diff program");
    expect(diff.content).toContain('Add --no-ext-diff');
    const plain = await bash('git diff --no-ext-diff HEAD~1', { sandboxed: true });
    expect(plain.content).toContain(' hello\n+world');
    expect(existsSync(m.file)).toBe(false);
  });

  it('refuses to run when the git config cannot be read, saying why', async () => {
    writeFileSync(path.join(repo.root, '.git', 'config'), '[core\n\tbroken = \n');
    const out = await bash('ls', { sandboxed: true });
    expect(out.isError).toBe(true);
    expect(out.content).toMatch(
      /^bash did not run: .*git config --list` failed \(.*bad config.*\)\. Fix the git config, or ask the user/,
    );
  });

  it('runs outside any repository', async () => {
    const plain = tempDir('outrider-no-repo-');
    try {
      const out = await executeTool(
        bashTool,
        { command: 'echo fine' },
        {
          signal: new AbortController().signal,
          workspace: makeWorkspace(plain.root),
          sandbox: 'read-only',
        },
      );
      expect(out).toEqual({ content: 'fine', isError: false });
    } finally {
      plain.cleanup();
    }
  });
});

describe('the sandbox reaches the tool only for calls no one approved', () => {
  /** One bash call through the session's real path: policy, gate, runner, tool. */
  async function throughGate(mode: PermissionMode, command: string, approve = false): Promise<string> {
    const tools = new ToolRegistry([bashTool]);
    const gate = new ApprovalGate({
      mode,
      headless: !approve,
      ...(approve ? { approver: async () => 'allow' as const } : {}),
    });
    const prepared = prepareCall({ type: 'tool_use', id: 'call-1', name: 'bash', input: { command } }, tools);
    const result = await runPreparedCall(prepared, {
      tools,
      workspace,
      gate: toolGate(gate, workspace),
      signal: new AbortController().signal,
      onUpdate: () => {},
    });
    return typeof result.content === 'string' ? result.content : JSON.stringify(result.content);
  }

  it.each<PermissionMode>(['default', 'accept-edits', 'plan'])(
    '%s mode: an auto-allowed git status is sandboxed',
    async (mode) => {
      const m = marker(`gate-${mode}`);
      git('config', 'core.fsmonitor', `${m.touch}; true`);
      expect(await throughGate(mode, 'git status --short')).toBe('(no output)');
      expect(existsSync(m.file)).toBe(false);
    },
  );

  it('a command the user approved runs as the user asked, config and all', async () => {
    const m = marker('approved');
    git('config', 'core.fsmonitor', `${m.touch}; true`);
    // `;` is outside what the read-only check accepts, so this one is asked, and approved.
    await throughGate('default', 'git status --short; true', true);
    expect(existsSync(m.file)).toBe(true);
  });

  it('yolo runs commands as they are: the user allowed everything', async () => {
    const m = marker('yolo');
    git('config', 'core.fsmonitor', `${m.touch}; true`);
    await throughGate('yolo', 'git status --short');
    expect(existsSync(m.file)).toBe(true);
  });
});

describe('PATH in the sandbox', () => {
  it('a BASH_ENV file in the workspace is not sourced', async () => {
    const m = marker('bash-env');
    const rc = repo.write('.envrc.sh', `${m.touch}\n`);
    for (const value of [rc, '.envrc.sh']) {
      const base = { ...process.env, BASH_ENV: value };
      const env = await readOnlySandboxEnv({ workspace, base, signal: new AbortController().signal });
      if (!env.ok) throw new Error(env.error);
      execFileSync('bash', ['-c', 'true'], { cwd: repo.root, env: env.env });
      expect(existsSync(m.file), `BASH_ENV=${value}`).toBe(false);
    }
    execFileSync('bash', ['-c', 'true'], { cwd: repo.root, env: { ...process.env, BASH_ENV: rc } });
    expect(existsSync(m.file), 'bash should source BASH_ENV without the sandbox').toBe(true);
  });

  it.runIf(hasRg())('a RIPGREP_CONFIG_PATH file in the workspace cannot add --pre', async () => {
    const m = marker('rg-config');
    const pre = script('pre', `${m.touch}\ncat "$1"`);
    const config = repo.write('.ripgreprc', `--pre=${pre}\n`);
    const base = { ...process.env, RIPGREP_CONFIG_PATH: config };
    const env = await readOnlySandboxEnv({ workspace, base, signal: new AbortController().signal });
    if (!env.ok) throw new Error(env.error);
    execFileSync('bash', ['-c', 'rg hello a.txt >/dev/null'], { cwd: repo.root, env: env.env });
    expect(existsSync(m.file)).toBe(false);
    execFileSync('bash', ['-c', 'rg hello a.txt >/dev/null'], { cwd: repo.root, env: base });
    expect(existsSync(m.file), 'rg should read its config without the sandbox').toBe(true);
  });

  it('a program planted in the workspace is not found by name', async () => {
    const m = marker('planted');
    const bin = path.join(repo.root, 'node_modules', '.bin');
    mkdirSync(bin, { recursive: true });
    writeFileSync(path.join(bin, 'ls'), `#!/bin/sh\n${m.touch}\n`, { mode: 0o755 });
    const base = { ...process.env, PATH: `${bin}:${process.env.PATH ?? ''}` };
    const env = await readOnlySandboxEnv({ workspace, base, signal: new AbortController().signal });
    expect(env.ok).toBe(true);
    if (!env.ok) return;
    execFileSync('bash', ['-c', 'ls >/dev/null'], { cwd: repo.root, env: env.env });
    expect(existsSync(m.file)).toBe(false);
    execFileSync('bash', ['-c', 'ls >/dev/null'], { cwd: repo.root, env: base });
    expect(existsSync(m.file), 'the planted ls should run without the sandbox').toBe(true);
  });
});
