import { readFileSync } from 'node:fs';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { testDirs, useTestSessions } from '../../support/test-session.js';
import { until } from '../../support/until.js';

/**
 * Claude Code's hook events outrider used to skip (SessionEnd, PreCompact, Notification
 * headless), and the fields Claude Code's hooks read (Task's prompt, Bash's stdout), through
 * real sessions and real hook scripts.
 */
const open = useTestSessions();

function withHooks(make: (dir: string) => Record<string, unknown>) {
  const dirs = testDirs();
  const dir = path.join(path.dirname(dirs.cwd), 'scripts');
  mkdirSync(dir, { recursive: true });
  mkdirSync(dirs.env.OUTRIDER_HOME!, { recursive: true });
  writeFileSync(path.join(dirs.env.OUTRIDER_HOME!, 'settings.json'), JSON.stringify({ hooks: make(dir) }));
  return { dirs, dir };
}

/** A hook that appends its stdin (one JSON object) as a line to `<dir>/<name>.jsonl`. */
const recorder = (dir: string, name: string) => ({
  hooks: [{ type: 'command', command: `cat >> "${dir}/${name}.jsonl"; echo >> "${dir}/${name}.jsonl"` }],
});
const recorded = (dir: string, name: string): any[] =>
  readFileSync(path.join(dir, `${name}.jsonl`), 'utf8')
    .split('\n')
    .filter((line) => line.trim())
    .map((line) => JSON.parse(line));

describe("Claude Code's hook events", () => {
  it('SessionEnd runs when the session closes, with its reason', async () => {
    const { dirs, dir } = withHooks((d) => ({ SessionEnd: [recorder(d, 'end')] }));
    const { session } = await open(() => ({ text: 'ok' }), { dirs });
    await session.close();
    expect(recorded(dir, 'end')).toEqual([expect.objectContaining({ hook_event_name: 'SessionEnd', reason: 'other' })]);
  });

  it('PreCompact runs before /compact, with trigger manual', async () => {
    const { dirs, dir } = withHooks((d) => ({ PreCompact: [{ matcher: 'manual', ...recorder(d, 'compact') }] }));
    const { session, submit } = await open((_, index) => ({ text: index === 0 ? 'first answer' : 'a summary' }), { dirs });
    await submit('hello');
    await session.compact(new AbortController().signal);
    expect(recorded(dir, 'compact')).toEqual([
      expect.objectContaining({ hook_event_name: 'PreCompact', trigger: 'manual', custom_instructions: '' }),
    ]);
  });

  it('Notification fires headless when a call waits for an answer no one can give', async () => {
    const { dirs, dir } = withHooks((d) => ({ Notification: [recorder(d, 'notify')] }));
    const { submit } = await open(
      (_, index) => (index === 0 ? { toolCalls: [{ name: 'bash', args: { command: 'touch x' } }] } : { text: 'ok' }),
      { dirs },
    );
    await submit('touch');
    await until(
      () => {
        try {
          return recorded(dir, 'notify').length === 1;
        } catch {
          return false;
        }
      },
      { what: 'the Notification hook to have run' },
    );
    expect(recorded(dir, 'notify')[0]).toMatchObject({
      hook_event_name: 'Notification',
      notification_type: 'permission_prompt',
      message: 'outrider needs your permission to use bash',
    });
  });

  it("Task's tool_input has prompt, subagent_type and description; Bash's tool_response has stdout, stderr, interrupted", async () => {
    const { dirs, dir } = withHooks((d) => ({
      PreToolUse: [{ matcher: 'Task', ...recorder(d, 'task') }],
      PostToolUse: [{ matcher: 'Bash', ...recorder(d, 'bash') }],
    }));
    const { submit } = await open(
      (request, index) => {
        if (request.system.includes('You are a sub-agent')) return { text: 'child done' };
        if (index === 0)
          return {
            toolCalls: [
              { name: 'agent_start', args: { task: 'Find the config loader\nthen report', agent: 'explore' } },
              { name: 'bash', args: { command: 'echo out; echo err >&2' } },
            ],
          };
        return { text: 'ok' };
      },
      { dirs, flags: { permissionMode: 'yolo' } },
    );
    await submit('go');
    expect(recorded(dir, 'task')[0].tool_input).toMatchObject({
      task: 'Find the config loader\nthen report',
      prompt: 'Find the config loader\nthen report',
      subagent_type: 'explore',
      description: 'Find the config loader',
    });
    expect(recorded(dir, 'bash')[0].tool_response).toMatchObject({
      stdout: expect.stringContaining('out'),
      stderr: '',
      interrupted: false,
      isImage: false,
    });
  });
});
