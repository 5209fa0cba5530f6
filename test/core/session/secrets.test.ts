import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { ModelRequest } from '../../../src/core/providers/types.js';
import { scrubSecrets, sessionSecrets } from '../../../src/core/session/secrets.js';
import { createBashTool } from '../../../src/core/tools/bash.js';
import { makeWorkspace } from '../../../src/core/platform/paths.js';
import { executeTool } from '../../../src/core/tools/registry.js';
import { requireBwrap } from '../../support/bwrap.js';
import { isChildRequest, testDirs, useTestSessions } from '../../support/test-session.js';
import { tempDir } from '../tools/harness.js';

const KEY = 'sk-ant-test-key-123456';
const open = useTestSessions();

describe('sessionSecrets', () => {
  it('holds the provider key variables and the key in use, wherever it came from', () => {
    expect(sessionSecrets({ ANTHROPIC_API_KEY: KEY, OPENAI_API_KEY: '' }, 'key-from-settings-0123')).toMatchObject({
      names: ['ANTHROPIC_API_KEY', 'ANTHROPIC_AUTH_TOKEN', 'OPENAI_API_KEY'],
      values: ['key-from-settings-0123', KEY],
    });
    // A local server's stand-in key is no secret, and scrubbing it would mangle text.
    expect(sessionSecrets({}, 'no-key').values).toEqual([]);
  });

  it('scrubs every form: key shapes, the variables, the key in use', () => {
    const secrets = sessionSecrets({ ANTHROPIC_API_KEY: KEY }, 'key-from-settings-0123');
    expect(scrubSecrets(`a ${KEY} b key-from-settings-0123 c sk-proj-abcdefghijklmnopqrstuvwxyz`, secrets)).toBe(
      'a [redacted] b [redacted] c [redacted]',
    );
  });
});

describe('child processes do not inherit the provider key', () => {
  const saved = process.env.ANTHROPIC_API_KEY;
  afterEach(() => {
    if (saved === undefined) delete process.env.ANTHROPIC_API_KEY;
    else process.env.ANTHROPIC_API_KEY = saved;
  });

  it.each([
    ['auto-allowed, in the sandbox', 'read-only' as const],
    ['approved, unsandboxed', undefined],
  ])('%s: /proc/self/environ shows no key', async (_name, sandbox) => {
    const dir = tempDir();
    try {
      const workspace = makeWorkspace(dir.root);
      const probe = await requireBwrap(workspace);
      const env = { ...process.env, ANTHROPIC_API_KEY: KEY, RENAMED: KEY, GITHUB_TOKEN: 'ghp_token_value' };
      const tool = createBashTool({
        env,
        sandbox: { config: { mode: 'off', network: false }, probe: () => Promise.resolve(probe) },
        secrets: sessionSecrets(env, KEY),
      });
      const out = await executeTool(
        tool,
        // cat opens its own environ: a `<` redirect would open the shell's, emptied by the exec.
        { command: "cat /proc/self/environ | tr '\\0' '\\n' | cut -d= -f1 | sort" },
        { signal: new AbortController().signal, workspace, ...(sandbox ? { sandbox } : {}) },
      );
      const names = out.content.split('\n');
      expect(names).toContain('PATH');
      expect(names).not.toContain('ANTHROPIC_API_KEY');
      expect(names).not.toContain('RENAMED');
      // An approved command keeps the user's other credentials (gh, npm need them); one no one approved does not.
      expect(names.includes('GITHUB_TOKEN')).toBe(sandbox === undefined);
    } finally {
      dir.cleanup();
    }
  });

  it('through a yolo session: the key outrider runs with never reaches a command', async () => {
    process.env.ANTHROPIC_API_KEY = KEY;
    const command = 'cat /proc/self/environ | tr "\\0" "\\n" | grep -c API_KEY';
    const opened = await open(
      (_r: ModelRequest, index: number) =>
        index === 0 ? { toolCalls: [{ name: 'bash', args: { command } }] } : { text: 'done' },
      { flags: { permissionMode: 'yolo' } },
    );
    await opened.submit('look');
    expect(opened.stream.requests[1]!.messages.at(-1)!.content[0]).toMatchObject({
      type: 'tool_result',
      content: '0\n\nexit code 1',
    });
  });

  it('through a default session: a command reading /proc is asked about, not run as read-only', async () => {
    // (The sandboxed run of such a command, were it approved, is the first test of this block.)
    process.env.ANTHROPIC_API_KEY = KEY;
    const command = 'cat /proc/self/environ | tr "\\0" "\\n" | grep -c API_KEY';
    const opened = await open(
      (_r: ModelRequest, index: number) =>
        index === 0 ? { toolCalls: [{ name: 'bash', args: { command } }] } : { text: 'done' },
      { flags: { permissionMode: 'default' } },
    );
    await opened.submit('look');
    expect(opened.stream.requests[1]!.messages.at(-1)!.content[0]).toMatchObject({
      type: 'tool_result',
      content: expect.stringMatching(/^bash needs approval, and there is no one to ask in headless mode/),
    });
  });
});

describe('tool output is scrubbed of the key', () => {
  it('for every tool, the parent and sub-agents alike', async () => {
    const dirs = testDirs();
    writeFileSync(path.join(dirs.cwd, 'notes.txt'), `the key is ${KEY}\n`);
    const opened = await open(
      (request: ModelRequest) => {
        const last = JSON.stringify(request.messages.at(-1));
        if (isChildRequest(request)) {
          return last.includes('tool_result')
            ? { text: 'child done' }
            : { toolCalls: [{ name: 'read_file', args: { path: 'notes.txt' } }] };
        }
        if (last.includes('"text":"go"')) {
          return {
            toolCalls: [
              { name: 'bash', args: { command: `echo ${KEY}` } },
              { name: 'read_file', args: { path: 'notes.txt' } },
              { name: 'grep', args: { pattern: 'key is' } },
            ],
          };
        }
        if (last.includes('[redacted]') && !last.includes('agent_start'))
          return { toolCalls: [{ name: 'agent_start', args: { task: 'read notes.txt' } }] };
        return { text: 'done' };
      },
      { dirs },
    );
    await opened.submit('go');
    await opened.session.waitForAgents(new AbortController().signal);
    const results = opened.stream.requests.flatMap((r) =>
      r.messages.flatMap((m) => m.content.filter((b) => b.type === 'tool_result').map((b) => String(b.content))),
    );
    expect(results.length).toBeGreaterThanOrEqual(3);
    expect(results.join('\n')).not.toContain(KEY);
    expect(results.filter((r) => r.includes('[redacted]')).length).toBeGreaterThanOrEqual(3);
    // The child's read went through the same scrub (its request carries its own tool result).
    const childResults = opened.stream.requests
      .filter(isChildRequest)
      .flatMap((r) => r.messages.flatMap((m) => m.content.filter((b) => b.type === 'tool_result').map((b) => String(b.content))));
    expect(childResults.some((r) => r.includes('the key is [redacted]'))).toBe(true);
  });

  it("bash's live lines are scrubbed too (they reach events-json output)", async () => {
    const opened = await open((_r: ModelRequest, index: number) =>
      index === 0 ? { toolCalls: [{ name: 'bash', args: { command: `echo ${KEY}` } }] } : { text: 'done' },
    );
    await opened.submit('go');
    const updates = opened.events.filter((e) => e.type === 'tool_update').map((e) => (e as { text: string }).text);
    expect(updates).toEqual(['[redacted]']);
  });
});
