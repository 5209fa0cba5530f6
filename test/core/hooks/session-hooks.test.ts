import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { MAX_STOP_HOOK_CONTINUES } from '../../../src/core/loop/loop-hooks.js';
import type { ModelRequest } from '../../../src/core/providers/types.js';
import type { SessionEvent } from '../../../src/core/session/event-stream.js';
import { openSession } from '../../../src/core/session/open-session.js';
import { fakeStream } from '../../support/fake-stream.js';
import { isChildRequest, testDirs, useTestSessions } from '../../support/test-session.js';
import { until } from '../../support/until.js';

/**
 * Real hook scripts through a real session (openSession wired as in production, a fake
 * model): each moment a hook runs at, what it reads on stdin, and what its answer changes.
 */
const open = useTestSessions();

type Hooks = Record<string, Array<{ matcher?: string; hooks: Array<{ type: string; command: string; timeout?: number }> }>>;

/** A test's folders with these hooks in the user's settings, and a place for scripts. */
function withHooks(make: (dir: string) => Hooks) {
  const dirs = testDirs();
  const scripts = path.join(path.dirname(dirs.cwd), 'scripts');
  mkdirSync(scripts, { recursive: true });
  mkdirSync(dirs.env.OUTRIDER_HOME!, { recursive: true });
  writeFileSync(path.join(dirs.env.OUTRIDER_HOME!, 'settings.json'), JSON.stringify({ hooks: make(scripts) }));
  return { dirs, scripts };
}

function script(dir: string, name: string, body: string): string {
  const file = path.join(dir, name);
  writeFileSync(file, `#!/bin/sh\n${body}\n`, { mode: 0o755 });
  return file;
}

const command = (c: string, timeout?: number) => ({ type: 'command', command: c, ...(timeout ? { timeout } : {}) });
const lastText = (request: ModelRequest) => JSON.stringify(request.messages.at(-1));
const hookEvents = (events: SessionEvent[]) =>
  events.filter((e): e is Extract<SessionEvent, { type: 'hook' }> => e.type === 'hook');

describe('PreToolUse through the real tool path', () => {
  it('a JSON deny refuses write_file even in yolo; the model reads the reason; the hook never sees the key', async () => {
    let scripts = '';
    const { dirs } = withHooks((dir) => {
      scripts = dir;
      const deny = script(
        dir,
        'deny.sh',
        `cat > "${dir}/input.json"; env > "${dir}/env.txt"\necho '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"generated files are read-only"}}'`,
      );
      return { PreToolUse: [{ matcher: 'Write', hooks: [command(deny)] }] };
    });
    const { stream, events, submit, cwd } = await open(
      (_, index) =>
        index === 0 ? { toolCalls: [{ name: 'write_file', args: { path: 'gen.ts', content: 'x' } }] } : { text: 'ok' },
      { dirs, flags: { permissionMode: 'yolo' } },
    );
    await submit('write it');
    expect(existsSync(path.join(cwd, 'gen.ts'))).toBe(false);
    expect(lastText(stream.requests[1]!)).toContain('Blocked by a PreToolUse hook: generated files are read-only');
    const input = JSON.parse(readFileSync(path.join(scripts, 'input.json'), 'utf8'));
    expect(input).toMatchObject({ tool_name: 'Write', tool_input: { path: 'gen.ts', file_path: path.join(cwd, 'gen.ts') } });
    const env = readFileSync(path.join(scripts, 'env.txt'), 'utf8');
    expect(env).not.toContain('sk-ant-test-key-123456');
    expect(env).not.toContain('ANTHROPIC_API_KEY');
    expect(env).toContain(`CLAUDE_PROJECT_DIR=${cwd}`);
    expect(hookEvents(events)).toEqual([
      expect.objectContaining({ event: 'PreToolUse', outcome: 'denied', tool: expect.objectContaining({ name: 'write_file' }) }),
    ]);
  });

  it("a hook's allow runs what headless would have denied, but not a write to .outrider/", async () => {
    const { dirs } = withHooks((dir) => ({
      PreToolUse: [
        {
          matcher: '.*',
          hooks: [command(script(dir, 'allow.sh', `echo '{"hookSpecificOutput":{"permissionDecision":"allow"}}'`))],
        },
      ],
    }));
    const { stream, submit, cwd } = await open(
      (_, index) =>
        index === 0
          ? {
              toolCalls: [
                { name: 'bash', args: { command: 'touch made' } },
                { name: 'write_file', args: { path: '.outrider/settings.json', content: '{"permissionMode":"yolo"}' } },
              ],
            }
          : { text: 'ok' },
      { dirs },
    );
    await submit('go');
    expect(existsSync(path.join(cwd, 'made'))).toBe(true);
    expect(existsSync(path.join(cwd, '.outrider', 'settings.json'))).toBe(false);
    expect(lastText(stream.requests[1]!)).toMatch(/write_file needs approval \(.*\.outrider/);
  });

  it("a hook's ask makes an allowed read ask (denied headless); a hook that times out only warns", async () => {
    const { dirs } = withHooks((dir) => ({
      PreToolUse: [
        {
          matcher: 'Read',
          hooks: [
            command(
              script(
                dir,
                'ask.sh',
                `echo '{"hookSpecificOutput":{"permissionDecision":"ask","permissionDecisionReason":"secrets live here"}}'`,
              ),
            ),
          ],
        },
        { matcher: 'LS', hooks: [command('sleep 5', 0.2)] },
      ],
    }));
    const { stream, events, submit } = await open(
      (_, index) =>
        index === 0
          ? {
              toolCalls: [
                { name: 'read_file', args: { path: 'x.txt' } },
                { name: 'list_dir', args: {} },
              ],
            }
          : { text: 'ok' },
      { dirs },
    );
    await submit('go');
    const results = lastText(stream.requests[1]!);
    expect(results).toContain('a PreToolUse hook asks: secrets live here');
    // list_dir ran: its result lists the folder, not a refusal.
    expect(results).not.toMatch(/list_dir needs approval|Blocked/);
    expect(hookEvents(events).find((e) => e.outcome === 'warning')).toMatchObject({
      text: 'timed out after 0.2s and was stopped',
    });
  });
});

describe('PostToolUse', () => {
  it('continue: false ends the run after the batch with the hook named as the cause', async () => {
    const { dirs } = withHooks((dir) => ({
      PostToolUse: [{ hooks: [command(script(dir, 'stop.sh', `echo '{"continue":false,"stopReason":"lint failed"}'`))] }],
    }));
    const { stream, submit } = await open(() => ({ toolCalls: [{ name: 'list_dir', args: {} }] }), { dirs });
    const result = await submit('go');
    expect(result.cause).toEqual({ kind: 'hook', event: 'PostToolUse', reason: 'lint failed' });
    expect(stream.requests).toHaveLength(1);
  });
});

describe('Stop', () => {
  it('exit 2 sends the model back with the stderr; stop_hook_active is true the second time', async () => {
    const { dirs } = withHooks((dir) => ({
      Stop: [
        {
          hooks: [
            command(
              script(
                dir,
                'stop.sh',
                `if grep -q '"stop_hook_active":false'; then echo "run the tests first" >&2; exit 2; fi; exit 0`,
              ),
            ),
          ],
        },
      ],
    }));
    const { stream, submit } = await open((_, index) => ({ text: index === 0 ? 'done' : 'tests pass, done' }), { dirs });
    const result = await submit('fix it');
    expect(result.cause).toEqual({ kind: 'completed' });
    expect(stream.requests).toHaveLength(2);
    expect(lastText(stream.requests[1]!)).toContain('Stop hook feedback:\\nrun the tests first');
  });

  it('a Stop hook that always blocks cannot loop for ever', async () => {
    const { dirs } = withHooks(() => ({ Stop: [{ hooks: [command('echo again >&2; exit 2')] }] }));
    const { stream, events, submit } = await open(() => ({ text: 'done' }), { dirs });
    const result = await submit('go');
    expect(result.cause).toEqual({ kind: 'completed' });
    expect(stream.requests).toHaveLength(MAX_STOP_HOOK_CONTINUES + 1);
    expect(events).toContainEqual(
      expect.objectContaining({ type: 'notice', text: expect.stringMatching(/Stop hooks sent the agent back/) }),
    );
  });
});

describe('UserPromptSubmit and SessionStart', () => {
  it('their context reaches the model with the first prompt; a prompt hook reads the prompt', async () => {
    let scripts = '';
    const { dirs } = withHooks((dir) => {
      scripts = dir;
      return {
        SessionStart: [{ matcher: 'startup', hooks: [command('echo "on branch feature-x"')] }],
        UserPromptSubmit: [
          { hooks: [command(script(dir, 'prompt.sh', `cat > "${dir}/prompt.json"; echo "ticket ABC-1 is open"`))] },
        ],
      };
    });
    const { stream, submit } = await open(() => ({ text: 'ok' }), { dirs });
    await submit('what now?');
    const sent = JSON.stringify(stream.requests[0]!.messages);
    expect(sent).toContain('Context from a SessionStart hook:\\non branch feature-x');
    expect(sent).toContain('Context from a UserPromptSubmit hook:\\nticket ABC-1 is open');
    expect(JSON.parse(readFileSync(path.join(scripts, 'prompt.json'), 'utf8'))).toMatchObject({
      hook_event_name: 'UserPromptSubmit',
      prompt: 'what now?',
    });
    // SessionStart's context comes once, not with every prompt.
    await submit('and then?');
    expect(JSON.stringify(stream.requests[1]!.messages).split('on branch feature-x')).toHaveLength(2);
  });

  it('a blocked prompt leaves no trace in the history and sends nothing', async () => {
    const { dirs } = withHooks(() => ({
      UserPromptSubmit: [{ hooks: [command(`echo '{"decision":"block","reason":"prompts must name a ticket"}'`)] }],
    }));
    const { session, stream, events, submit } = await open(() => ({ text: 'ok' }), { dirs });
    const result = await submit('do stuff');
    expect(result.cause).toEqual({ kind: 'hook', event: 'UserPromptSubmit', reason: 'prompts must name a ticket' });
    expect(stream.requests).toHaveLength(0);
    expect(session.session.messages()).toHaveLength(0);
    expect(events.at(-1)).toEqual({ type: 'run_end', cause: result.cause });
  });
});

describe('SubagentStart and SubagentStop', () => {
  it('run for each job with its id and type; SubagentStop can send the child back; its tool calls pass PreToolUse', async () => {
    let scripts = '';
    const { dirs } = withHooks((dir) => {
      scripts = dir;
      return {
        SubagentStart: [
          {
            matcher: 'explore',
            hooks: [
              command(
                script(
                  dir,
                  'start.sh',
                  `cat > "${dir}/start.json"; echo '{"hookSpecificOutput":{"additionalContext":"look in src/ first"}}'`,
                ),
              ),
            ],
          },
        ],
        SubagentStop: [
          {
            hooks: [
              command(
                script(dir, 'substop.sh', `if grep -q '"stop_hook_active":false'; then echo "cite line numbers" >&2; exit 2; fi`),
              ),
            ],
          },
        ],
        PreToolUse: [{ matcher: 'Grep', hooks: [command(script(dir, 'pre.sh', `cat > "${dir}/child-pre.json"`))] }],
      };
    });
    const childRequests: ModelRequest[] = [];
    const { submit } = await open(
      (request) => {
        if (isChildRequest(request)) {
          childRequests.push(request);
          if (childRequests.length === 1) return { toolCalls: [{ name: 'grep', args: { pattern: 'x' } }] };
          return { text: childRequests.length === 2 ? 'found it' : 'found it at a.ts:3' };
        }
        if (request.messages.length === 1) return { toolCalls: [{ name: 'agent_start', args: { task: 'look' } }] };
        if (request.messages.length === 3) return { toolCalls: [{ name: 'agent_poll', args: { id: 'sub-1' } }] };
        return { text: 'done' };
      },
      { dirs },
    );
    await submit('go');
    expect(JSON.stringify(childRequests[0]!.messages)).toContain('Context from a SubagentStart hook:\\nlook in src/ first');
    expect(childRequests).toHaveLength(3);
    expect(lastText(childRequests[2]!)).toContain('SubagentStop hook feedback:\\ncite line numbers');
    expect(JSON.parse(readFileSync(path.join(scripts, 'start.json'), 'utf8'))).toMatchObject({
      hook_event_name: 'SubagentStart',
      agent_id: 'sub-1',
      agent_type: 'explore',
    });
    expect(JSON.parse(readFileSync(path.join(scripts, 'child-pre.json'), 'utf8'))).toMatchObject({
      tool_name: 'Grep',
      agent_id: 'sub-1',
    });
  });
});

describe('Notification', () => {
  it('runs beside the approver when the agent waits for an answer, with the message and its type', async () => {
    let scripts = '';
    const { dirs } = withHooks((dir) => {
      scripts = dir;
      return { Notification: [{ matcher: 'permission_prompt', hooks: [command(`cat > "${dir}/notified.json"`)] }] };
    });
    const stream = fakeStream((_, index) =>
      index === 0 ? { toolCalls: [{ name: 'bash', args: { command: 'touch asked' } }] } : { text: 'ok' },
    );
    const asked: string[] = [];
    let input: unknown;
    const opened = await openSession({
      ...dirs,
      headless: false,
      flags: {},
      stream,
      approver: async (request) => {
        asked.push(request.toolName);
        // The answer waits for the hook's input: it runs while the agent waits, not after.
        input = await until(
          () => {
            const file = path.join(scripts, 'notified.json');
            const text = existsSync(file) ? readFileSync(file, 'utf8') : '';
            return text.endsWith('\n') ? (JSON.parse(text) as unknown) : undefined;
          },
          { what: 'the Notification hook to read its input' },
        );
        return 'deny';
      },
    });
    try {
      await opened.session.submit('go', new AbortController().signal);
    } finally {
      await opened.close();
    }
    expect(asked).toEqual(['bash']);
    expect(input).toMatchObject({
      hook_event_name: 'Notification',
      notification_type: 'permission_prompt',
      message: 'outrider needs your permission to use bash',
    });
  });
});

describe("a hook's output on its way to the model", () => {
  it('is scrubbed of the provider key, like every tool output', async () => {
    // The hook's environment has no key, but a hook can read it from anywhere (a file, a keychain).
    const { dirs } = withHooks((dir) => {
      writeFileSync(path.join(dir, 'key.txt'), 'sk-ant-test-key-123456');
      return { PreToolUse: [{ hooks: [command(`echo "leaked: $(cat '${dir}/key.txt')" >&2; exit 2`)] }] };
    });
    const { stream, submit } = await open(
      (_, index) => (index === 0 ? { toolCalls: [{ name: 'list_dir', args: {} }] } : { text: 'ok' }),
      { dirs },
    );
    await submit('go');
    const sent = lastText(stream.requests[1]!);
    expect(sent).toContain('Blocked by a PreToolUse hook: leaked:');
    expect(sent).not.toContain('sk-ant-test-key-123456');
  });
});
