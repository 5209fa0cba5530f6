import { describe, expect, it } from 'vitest';
import { claudeToolName, hookToolInput, matchableNames } from '../../../src/core/hooks/claude-tools.js';
import { concatHooks, hooksWithin } from '../../../src/core/hooks/hook-settings.js';
import { compileHooks, hooksFor } from '../../../src/core/hooks/matcher.js';
import type { HookSettings } from '../../../src/core/hooks/hook-settings.js';

const cmd = (command: string, timeout?: number) => ({ type: 'command', command, ...(timeout ? { timeout } : {}) });
const commandsFor = (settings: HookSettings, event: Parameters<typeof hooksFor>[1], tool?: string) =>
  hooksFor(compileHooks(settings).table, event, tool ? matchableNames(tool) : []).map((c) => c.command);

describe('matchers over tool names', () => {
  const settings: HookSettings = {
    PreToolUse: [
      { matcher: 'Bash', hooks: [cmd('claude-bash')] },
      { matcher: 'bash|write_file', hooks: [cmd('ours')] },
      { matcher: 'Edit|Write', hooks: [cmd('edits')] },
      { matcher: 'mcp__github__.*', hooks: [cmd('github')] },
      { matcher: '*', hooks: [cmd('star')] },
      { hooks: [cmd('none')] },
      { matcher: '', hooks: [cmd('empty')] },
    ],
  };

  it("Claude Code's names match outrider's tools, and outrider's names match too", () => {
    expect(commandsFor(settings, 'PreToolUse', 'bash')).toEqual(['claude-bash', 'ours', 'star', 'none', 'empty']);
    expect(commandsFor(settings, 'PreToolUse', 'write_file')).toEqual(['ours', 'edits', 'star', 'none', 'empty']);
    expect(commandsFor(settings, 'PreToolUse', 'edit_file')).toEqual(['edits', 'star', 'none', 'empty']);
    expect(commandsFor(settings, 'PreToolUse', 'mcp__github__create_issue')).toEqual(['github', 'star', 'none', 'empty']);
  });

  it('a matcher matches the whole name, not a part of it', () => {
    const partial: HookSettings = {
      PreToolUse: [
        { matcher: 'Edit', hooks: [cmd('edit')] },
        { matcher: 'mcp__github', hooks: [cmd('gh')] },
      ],
    };
    // MultiEdit is also a Claude name of edit_file, but "Edit" must not match "read_file" or "mcp__github__x".
    expect(commandsFor(partial, 'PreToolUse', 'read_file')).toEqual([]);
    expect(commandsFor(partial, 'PreToolUse', 'mcp__github__x')).toEqual([]);
    expect(commandsFor(partial, 'PreToolUse', 'edit_file')).toEqual(['edit']);
  });

  it('matching is case-sensitive, as in Claude Code', () => {
    expect(commandsFor({ PreToolUse: [{ matcher: 'BASH', hooks: [cmd('x')] }] }, 'PreToolUse', 'bash')).toEqual([]);
  });

  it('Task matches agent_start; a Claude-only name matches nothing', () => {
    expect(commandsFor({ PreToolUse: [{ matcher: 'Task', hooks: [cmd('t')] }] }, 'PreToolUse', 'agent_start')).toEqual(['t']);
    expect(commandsFor({ PreToolUse: [{ matcher: 'NotebookEdit', hooks: [cmd('n')] }] }, 'PreToolUse', 'edit_file')).toEqual([]);
  });

  it('the same command in two matching groups runs once', () => {
    const twice: HookSettings = {
      PostToolUse: [
        { matcher: 'Bash', hooks: [cmd('fmt')] },
        { matcher: '.*', hooks: [cmd('fmt')] },
      ],
    };
    expect(commandsFor(twice, 'PostToolUse', 'bash')).toEqual(['fmt']);
  });

  it('events without a subject run every group whatever its matcher', () => {
    expect(commandsFor({ Stop: [{ matcher: 'ignored', hooks: [cmd('s')] }] }, 'Stop')).toEqual(['s']);
  });

  it('timeouts are seconds, 60 by default', () => {
    const { table } = compileHooks({ Stop: [{ hooks: [cmd('a'), cmd('b', 2.5)] }] });
    expect(hooksFor(table, 'Stop').map((c) => c.timeoutMs)).toEqual([60_000, 2_500]);
  });
});

describe('compileHooks warnings: nothing another agent wrote stops a start', () => {
  it('names events outrider does not run, unknown events, other hook types and bad regexes, and skips them', () => {
    const { table, warnings } = compileHooks({
      PermissionRequest: [{ hooks: [cmd('a')] }],
      PreToolUze: [{ hooks: [cmd('b')] }],
      Stop: [{ hooks: [{ type: 'prompt' }, cmd('kept')] }],
      PreToolUse: [{ matcher: '(', hooks: [cmd('c')] }],
    });
    expect(warnings).toEqual([
      'hooks: Stop has a "prompt" hook; outrider runs only "command" hooks',
      'hooks: PreToolUse matcher "(" is not a regular expression; its hooks do not run',
      expect.stringMatching(
        /^hooks for PermissionRequest, PreToolUze \(not a hook event; expected one of PreToolUse, .*\) are not run by outrider$/,
      ),
    ]);
    expect(hooksFor(table, 'Stop').map((c) => c.command)).toEqual(['kept']);
    expect(hooksFor(table, 'PreToolUse', ['bash'])).toEqual([]);
  });
});

describe("Claude Code's tool fields for hook scripts", () => {
  it("tool_name is Claude Code's where one exists", () => {
    expect(claudeToolName('bash')).toBe('Bash');
    expect(claudeToolName('write_file')).toBe('Write');
    expect(claudeToolName('edit_file')).toBe('Edit');
    expect(claudeToolName('list_dir')).toBe('LS');
    expect(claudeToolName('agent_start')).toBe('Task');
    expect(claudeToolName('mcp__x__y')).toBe('mcp__x__y');
  });

  it('file tools get an absolute file_path beside path', () => {
    expect(hookToolInput('edit_file', { path: 'src/a.ts', old_string: 'a', new_string: 'b' }, '/repo')).toEqual({
      path: 'src/a.ts',
      file_path: '/repo/src/a.ts',
      old_string: 'a',
      new_string: 'b',
    });
    expect(hookToolInput('bash', { command: 'ls', timeout_ms: 5 }, '/repo')).toEqual({
      command: 'ls',
      timeout_ms: 5,
      timeout: 5,
    });
    expect(hookToolInput('grep', { pattern: 'x' }, '/repo')).toEqual({ pattern: 'x' });
  });
});

describe('hooks across settings layers', () => {
  const a = { matcher: 'Bash', hooks: [cmd('a')] };
  const b = { matcher: 'Bash', hooks: [cmd('b')] };

  it('every layer adds its groups; one identical in two layers is kept once', () => {
    expect(
      concatHooks([{ PreToolUse: [a] }, { PreToolUse: [b, { hooks: [cmd('a')], matcher: 'Bash' }] }, { Stop: [a] }]),
    ).toEqual({
      PreToolUse: [a, b],
      Stop: [a],
    });
  });

  it("a project's hooks are within the user's only when each group is the user's already", () => {
    expect(hooksWithin({ PreToolUse: [a] }, { PreToolUse: [b, a] })).toBe(true);
    expect(hooksWithin({ PreToolUse: [a] }, { Stop: [a] })).toBe(false);
    expect(hooksWithin({ PreToolUse: [a] }, undefined)).toBe(false);
    expect(hooksWithin({ PreToolUse: [{ ...a, hooks: [cmd('a', 5)] }] }, { PreToolUse: [a] })).toBe(false);
  });
});
