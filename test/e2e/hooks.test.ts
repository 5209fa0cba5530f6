import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { useMockProject } from '../support/e2e-project.js';
import { runCli } from '../support/run-cli.js';

/**
 * Hooks through the built binary, in Claude Code's format, with real shell scripts: a
 * PreToolUse hook that exits 2 refuses bash and the model reads why; a PostToolUse hook reads
 * the tool's result; a project's hooks do not run in a folder nobody trusted.
 */
const t = useMockProject();

const run = (args: string[]) => runCli(args, { cwd: t.project, env: t.env });

function writeSettings(file: string, value: unknown): void {
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, JSON.stringify(value, null, 2));
}

/** A hook script in the project: `body` is sh, its stdin the event. */
function writeScript(name: string, body: string): string {
  const file = path.join(t.project, 'hooks', name);
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, `#!/bin/sh\n${body}\n`, { mode: 0o755 });
  return file;
}

const userSettings = () => path.join(t.home, 'settings.json');

describe('hooks through the binary', () => {
  it('a PreToolUse hook that exits 2 refuses bash, and the next request carries its stderr', async () => {
    const guard = writeScript(
      'guard.sh',
      `cat > "${t.project}/pre-input.json"\necho "rm is not allowed here, use trash" >&2\nexit 2`,
    );
    writeSettings(userSettings(), {
      hooks: { PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: guard, timeout: 30 }] }] },
    });
    t.mock.script({ toolCalls: [{ name: 'bash', args: { command: 'touch made-by-bash' } }] }, { text: 'ok' });
    const result = await run(['-p', 'make a file', '--yolo']);
    expect(result.code).toBe(0);
    // Even yolo: the hook refused it before the gate could allow it.
    expect(existsSync(path.join(t.project, 'made-by-bash'))).toBe(false);
    expect(t.mock.requests).toHaveLength(2);
    const toolResult = t.mock.requests[1]!.body.messages.at(-1).content[0];
    expect(toolResult.type).toBe('tool_result');
    expect(JSON.stringify(toolResult.content)).toContain('rm is not allowed here, use trash');
    expect(toolResult.is_error).toBe(true);
    // The hook read Claude Code's input: the tool under Claude Code's name, its command, the session.
    const input = JSON.parse(readFileSync(path.join(t.project, 'pre-input.json'), 'utf8'));
    expect(input).toMatchObject({
      hook_event_name: 'PreToolUse',
      tool_name: 'Bash',
      outrider_tool_name: 'bash',
      tool_input: { command: 'touch made-by-bash' },
      cwd: t.project,
      permission_mode: 'bypassPermissions',
    });
    expect(typeof input.session_id).toBe('string');
    expect(input.transcript_path).toContain(input.session_id);
    // The user is told on stderr.
    expect(result.stderr).toContain('PreToolUse hook blocked bash: rm is not allowed here, use trash');
  });

  it('a PostToolUse hook receives tool_response, and its exit-2 stderr reaches the model beside the result', async () => {
    const after = writeScript('after.sh', `cat > "${t.project}/post-input.json"\necho "remember to run the tests" >&2\nexit 2`);
    writeSettings(userSettings(), {
      hooks: { PostToolUse: [{ matcher: 'Write|Edit', hooks: [{ type: 'command', command: after }] }] },
    });
    t.mock.script({ toolCalls: [{ name: 'write_file', args: { path: 'note.txt', content: 'hello\n' } }] }, { text: 'written' });
    const result = await run(['-p', 'write a note', '--permission-mode', 'accept-edits']);
    expect(result.code).toBe(0);
    expect(readFileSync(path.join(t.project, 'note.txt'), 'utf8')).toBe('hello\n');
    const input = JSON.parse(readFileSync(path.join(t.project, 'post-input.json'), 'utf8'));
    expect(input.hook_event_name).toBe('PostToolUse');
    expect(input.tool_name).toBe('Write');
    expect(input.tool_input).toMatchObject({ path: 'note.txt', file_path: path.join(t.project, 'note.txt'), content: 'hello\n' });
    expect(input.tool_response).toMatchObject({ is_error: false, success: true, filePath: path.join(t.project, 'note.txt') });
    expect(input.tool_response.content).toContain('note.txt');
    const toolResult = JSON.stringify(t.mock.requests[1]!.body.messages.at(-1).content[0].content);
    expect(toolResult).toContain('PostToolUse hook feedback');
    expect(toolResult).toContain('remember to run the tests');
  });

  it("an untrusted project's hooks do not run, and one warning names them", async () => {
    const marker = path.join(t.project, 'project-hook-ran');
    writeSettings(path.join(t.project, '.outrider', 'settings.json'), {
      hooks: {
        SessionStart: [{ hooks: [{ type: 'command', command: `touch "${marker}"` }] }],
        UserPromptSubmit: [{ hooks: [{ type: 'command', command: `touch "${marker}"` }] }],
        PreToolUse: [{ hooks: [{ type: 'command', command: `touch "${marker}"` }] }],
      },
    });
    t.mock.script({ toolCalls: [{ name: 'read_file', args: { path: '.outrider/settings.json' } }] }, { text: 'read' });
    const result = await run(['-p', 'read the settings']);
    expect(result.code).toBe(0);
    expect(t.mock.requests).toHaveLength(2);
    expect(existsSync(marker)).toBe(false);
    const warnings = result.stderr.split('\n').filter((line) => line.includes('ignored'));
    expect(warnings).toEqual([expect.stringContaining('ignored hooks from')]);
    // With --trust the same hooks run: the test above is not passing for another reason.
    t.mock.reset();
    t.mock.script({ text: 'hi' });
    const trusted = await run(['-p', 'hello', '--trust']);
    expect(trusted.code).toBe(0);
    expect(existsSync(marker)).toBe(true);
  });

  it('a UserPromptSubmit hook that exits 2 drops the prompt: no request is made and the run fails with its reason', async () => {
    writeSettings(userSettings(), {
      hooks: {
        UserPromptSubmit: [
          { hooks: [{ type: 'command', command: 'grep -q secret && { echo "no secrets in prompts" >&2; exit 2; }; exit 0' }] },
        ],
      },
    });
    t.mock.script({ text: 'should not be asked' });
    const result = await run(['-p', 'here is my secret']);
    expect(result.code).not.toBe(0);
    expect(t.mock.requests).toHaveLength(0);
    expect(result.stderr).toContain('a UserPromptSubmit hook blocked the prompt: no secrets in prompts');
  });
});
