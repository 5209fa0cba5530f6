import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { messageText } from '../../../src/core/providers/types.js';
import { testDirs, useTestSessions } from '../../support/test-session.js';

/**
 * `` !`cmd` `` and `@file` in a custom command's body, through a real session: each passes the
 * permission gate as the bash or read_file call it is, and what they give lands in the prompt.
 */
const open = useTestSessions();

function withCommand(body: string, frontMatter = '') {
  const dirs = testDirs();
  const file = path.join(dirs.cwd, '.claude', 'commands', 'status.md');
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, frontMatter ? `---\n${frontMatter}\n---\n${body}` : body);
  return dirs;
}

async function promptOf(dirs: ReturnType<typeof testDirs>, typed: string, flags = {}) {
  const { session, stream } = await open(() => ({ text: 'ok' }), { dirs, flags });
  await session.submitPrompt(typed, new AbortController().signal);
  const first = stream.requests[0]!.messages.find((m) => m.role === 'user')!;
  return messageText(first);
}

describe('directives in a command body', () => {
  it('runs !`cmd` that the command allows and puts its output in its place; the arguments stay text', async () => {
    const dirs = withCommand('Status: !`echo from-the-shell`\nTask: $ARGUMENTS', 'allowed-tools: Bash(echo:*)');
    const prompt = await promptOf(dirs, '/status !`touch injected`');
    expect(prompt).toContain('Status: from-the-shell');
    // What the user typed is put in after the directives ran: never run as a command.
    expect(prompt).toContain('Task: !`touch injected`');
    expect(existsSync(path.join(dirs.cwd, 'injected'))).toBe(false);
  });

  it('asks like any bash call: headless with nobody to ask it is not run, and says why', async () => {
    const dirs = withCommand('Files: !`touch made-by-command`');
    const prompt = await promptOf(dirs, '/status');
    expect(existsSync(path.join(dirs.cwd, 'made-by-command'))).toBe(false);
    expect(prompt).toMatch(/\[!`touch made-by-command` was not run or failed: bash needs approval/);
  });

  it('is refused in plan mode, even with allowed-tools', async () => {
    const dirs = withCommand('!`touch planned`', 'allowed-tools: Bash(touch:*)');
    const prompt = await promptOf(dirs, '/status', { permissionMode: 'plan' });
    expect(existsSync(path.join(dirs.cwd, 'planned')).valueOf()).toBe(false);
    expect(prompt).toContain('plan mode');
  });

  it('inlines @file from the workspace; prose @names stay; a file outside the workspace is not read', async () => {
    const dirs = withCommand('Read @notes.md, ask @octocat, and @../secret.txt.');
    writeFileSync(path.join(dirs.cwd, 'notes.md'), 'THE NOTES');
    writeFileSync(path.join(dirs.cwd, '..', 'secret.txt'), 'SECRET');
    const prompt = await promptOf(dirs, '/status');
    expect(prompt).toContain('THE NOTES');
    expect(prompt).toContain('@octocat');
    expect(prompt).not.toContain('SECRET');
    expect(prompt).toContain('[@../secret.txt was not read: it is outside the workspace]');
  });

  it('a deny rule refuses @file too', async () => {
    const dirs = withCommand('Key: @secrets/key.txt');
    mkdirSync(path.join(dirs.cwd, 'secrets'));
    writeFileSync(path.join(dirs.cwd, 'secrets', 'key.txt'), 'KEY-123');
    const prompt = await promptOf(dirs, '/status', { permissions: { deny: ['Read(./secrets/**)'] } });
    expect(prompt).not.toContain('KEY-123');
    expect(prompt).toContain('denied by the permission rule "Read(./secrets/**)"');
  });
});
