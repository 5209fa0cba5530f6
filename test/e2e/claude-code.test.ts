import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { useMockProject } from '../support/e2e-project.js';
import type { RecordedRequest } from '../support/mock-provider.js';
import { MCP_BIN } from '../support/mcp-servers.js';
import { runCli } from '../support/run-cli.js';

/**
 * A Claude Code user's setup and command lines, unchanged: `.claude/settings.json` (and the
 * local and user files), permission rules in Claude Code's grammar, its flags and model aliases.
 */
const t = useMockProject();

const run = (args: string[], stdin?: string) => runCli(args, { cwd: t.project, env: t.env, stdin });

function write(file: string, value: unknown): string {
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, typeof value === 'string' ? value : JSON.stringify(value, null, 2));
  return file;
}
const claudeProject = (value: unknown) => write(path.join(t.project, '.claude', 'settings.json'), value);
const claudeUser = (value: unknown) => write(path.join(t.home, '.claude', 'settings.json'), value);
const outriderUser = (value: unknown) => write(path.join(t.home, 'settings.json'), value);

/** The text of every tool result the model was sent in `request`. */
function toolResults(request: RecordedRequest): string[] {
  return (request.body.messages as Array<{ content: unknown }>)
    .flatMap((m) => (Array.isArray(m.content) ? m.content : []))
    .filter((b: { type: string }) => b.type === 'tool_result')
    .map((b: { content: unknown }) =>
      typeof b.content === 'string' ? b.content : (b.content as Array<{ text?: string }>).map((c) => c.text ?? '').join(''),
    );
}

function secretFixture(): string {
  write(path.join(t.project, 'secrets', 'key.txt'), 'SECRET-VALUE-123');
  return 'SECRET-VALUE-123';
}

describe('.claude/settings.json', () => {
  it('enforces its deny rule on an untrusted folder, even with --dangerously-skip-permissions: the secret is never read', async () => {
    const secret = secretFixture();
    claudeProject({ permissions: { deny: ['Read(./secrets/**)'] } });
    t.mock.script(
      { toolCalls: [{ name: 'read_file', args: { path: 'secrets/key.txt' } }] },
      { toolCalls: [{ name: 'bash', args: { command: 'cat secrets/key.txt' } }] },
      { text: 'could not' },
    );
    const result = await run(['-p', 'read the key', '--dangerously-skip-permissions']);
    expect(result.code).toBe(0);
    expect(toolResults(t.mock.requests[1]!)).toEqual(['read_file: denied by the permission rule "Read(./secrets/**)"']);
    expect(toolResults(t.mock.requests[2]!)[1]).toBe('bash: denied by the permission rule "Read(./secrets/**)"');
    for (const request of t.mock.requests) expect(request.raw).not.toContain(secret);
  });

  it('applies its allow rule and its hooks only in a trusted folder', async () => {
    const hookOut = path.join(t.project, 'hook-ran.txt');
    claudeProject({
      permissions: { allow: ['Bash(touch:*)'] },
      hooks: { PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: `cat > ${JSON.stringify(hookOut)}` }] }] },
    });
    const script = () =>
      t.mock.script({ toolCalls: [{ name: 'bash', args: { command: 'touch made-by-rule' } }] }, { text: 'ok' });

    script();
    const untrusted = await run(['-p', 'touch it']);
    expect(untrusted.code).toBe(0);
    expect(existsSync(path.join(t.project, 'made-by-rule'))).toBe(false);
    expect(existsSync(hookOut)).toBe(false);
    expect(untrusted.stderr).toMatch(/ignored permissions, hooks from .*\.claude\/settings\.json: this folder is not trusted/);

    t.mock.reset();
    script();
    const trusted = await run(['-p', 'touch it', '--trust']);
    expect(trusted.code).toBe(0);
    expect(existsSync(path.join(t.project, 'made-by-rule'))).toBe(true);
    // The hook read Claude Code's input: tool_name Bash and the command.
    expect(JSON.parse(readFileSync(hookOut, 'utf8'))).toMatchObject({
      hook_event_name: 'PreToolUse',
      tool_name: 'Bash',
      tool_input: { command: 'touch made-by-rule' },
    });
  });

  it("~/.claude/settings.json is the user's own: its allow rule applies without trust; keys outrider lacks are named once", async () => {
    claudeUser({ permissions: { allow: ['Bash(touch:*)'] }, outputStyle: 'Explanatory' });
    t.mock.script({ toolCalls: [{ name: 'bash', args: { command: 'touch from-user-rule' } }] }, { text: 'ok' });
    const result = await run(['-p', 'touch it']);
    expect(result.code).toBe(0);
    expect(existsSync(path.join(t.project, 'from-user-rule'))).toBe(true);
    expect(result.stderr.match(/does not honour "outputStyle"/g)).toHaveLength(1);
  });
});

describe("outrider's own permissions.allow / deny / ask", () => {
  it("are settings keys in Claude Code's grammar (deny no longer stops the start), and deny wins over allow", async () => {
    outriderUser({ permissions: { allow: ['Bash(touch:*)'], deny: ['Bash(touch secret*)'] } });
    t.mock.script(
      { toolCalls: [{ name: 'bash', args: { command: 'touch fine' } }] },
      { toolCalls: [{ name: 'bash', args: { command: 'touch secret-file' } }] },
      { text: 'ok' },
    );
    const result = await run(['-p', 'touch']);
    expect(result.code).toBe(0);
    expect(existsSync(path.join(t.project, 'fine'))).toBe(true);
    expect(existsSync(path.join(t.project, 'secret-file'))).toBe(false);
    expect(toolResults(t.mock.requests[2]!)[1]).toBe('bash: denied by the permission rule "Bash(touch secret*)"');
  });

  it('a rule that cannot be read stops the start with the key and the problem named', async () => {
    outriderUser({ permissions: { deny: ['Bash(rm:*'] } });
    const result = await run(['-p', 'hi']);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/permissions\.deny\[0\]: expected a permission rule: "Bash\(rm:\*" does not end with "\)"/);
    expect(t.mock.requests).toHaveLength(0);
  });
});

describe("Claude Code's flags", () => {
  it('accepts a whole Claude Code command line', async () => {
    t.mock.script({ text: 'hello' });
    const result = await run([
      '-p',
      'hi',
      '--output-format',
      'stream-json',
      '--verbose',
      '--dangerously-skip-permissions',
      '--allowedTools',
      'Read,Bash(git diff:*)',
      '--disallowedTools',
      'WebFetch',
      '--append-system-prompt',
      'Always answer in French.',
      '--setting-sources',
      'user,project',
      '--session-id',
      '0b7c1a4e-3f2d-4c5b-9a8e-7d6c5b4a3f2e',
      '--fallback-model',
      'haiku',
      '--strict-mcp-config',
      '--include-partial-messages',
      '--permission-mode',
      'acceptEdits',
      '--model',
      'sonnet',
    ]);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const lines = result.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(lines[0]).toMatchObject({ type: 'system', subtype: 'init', session_id: '0b7c1a4e-3f2d-4c5b-9a8e-7d6c5b4a3f2e' });
    // --dangerously-skip-permissions wins over --permission-mode, as the flag it is.
    expect(lines[0].permissionMode).toBe('bypassPermissions');
    expect(t.mock.requests[0]!.body.model).toBe('claude-sonnet-5');
    expect(JSON.stringify(t.mock.requests[0]!.body.system)).toContain('Always answer in French.');
    expect(lines.some((line) => line.type === 'stream_event' && line.event.type === 'content_block_delta')).toBe(true);
    expect(lines.at(-1)).toMatchObject({ type: 'result', subtype: 'success', result: 'hello' });
  });

  it('--allowedTools and --disallowedTools are permission rules', async () => {
    t.mock.script(
      { toolCalls: [{ name: 'bash', args: { command: 'touch allowed' } }] },
      { toolCalls: [{ name: 'bash', args: { command: 'rm -f allowed' } }] },
      { text: 'ok' },
    );
    const result = await run(['-p', 'go', '--allowedTools', 'Bash(touch:*)', 'Bash(rm:*)', '--disallowed-tools', 'Bash(rm:*)']);
    expect(result.code).toBe(0);
    expect(existsSync(path.join(t.project, 'allowed'))).toBe(true);
    expect(toolResults(t.mock.requests[2]!)[1]).toBe('bash: denied by the permission rule "Bash(rm:*)"');
  });

  it('--permission-mode acceptEdits and bypassPermissions are accept-edits and yolo', async () => {
    t.mock.script({ toolCalls: [{ name: 'write_file', args: { path: 'a.txt', content: 'a' } }] }, { text: 'ok' });
    expect((await run(['-p', 'write', '--permission-mode', 'acceptEdits'])).code).toBe(0);
    expect(readFileSync(path.join(t.project, 'a.txt'), 'utf8')).toBe('a');
    t.mock.reset();
    t.mock.script({ toolCalls: [{ name: 'bash', args: { command: 'touch b' } }] }, { text: 'ok' });
    expect((await run(['-p', 'touch', '--permission-mode', 'bypassPermissions'])).code).toBe(0);
    expect(existsSync(path.join(t.project, 'b'))).toBe(true);
  });

  it('--system-prompt replaces the prompt; --append-system-prompt is added once, also across turns', async () => {
    t.mock.script({ toolCalls: [{ name: 'list_dir', args: {} }] }, { text: 'ok' });
    const result = await run(['-p', 'hi', '--system-prompt', 'You are a pirate.', '--append-system-prompt', 'Say arr.']);
    expect(result.code).toBe(0);
    for (const request of t.mock.requests) {
      const system = JSON.stringify(request.body.system);
      expect(system).toContain('You are a pirate.\\n\\nSay arr.');
      expect(system).not.toContain('outrider');
      expect(system.split('Say arr.')).toHaveLength(2);
    }
  });

  it('--session-id names the session; an id in use is refused', async () => {
    const id = '9f1e2d3c-4b5a-4968-8776-655443322110';
    t.mock.script({ text: 'one' });
    const first = await run(['-p', 'hi', '--output-format', 'json', '--session-id', id]);
    expect(JSON.parse(first.stdout).session_id).toBe(id);
    const again = await run(['-p', 'hi', '--session-id', id]);
    expect(again.code).toBe(2);
    expect(again.stderr).toContain(`session id ${id} is already in use: resume it with --resume ${id}`);
    const bad = await run(['-p', 'hi', '--session-id', 'not-a-uuid']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('expected a UUID');
  });

  it('--fallback-model takes over when the model stays overloaded', async () => {
    outriderUser({ maxRetries: 0 });
    t.mock.respond((request) =>
      request.body.model === 'claude-opus-5-5'
        ? { fault: { kind: 'status', status: 529, type: 'overloaded_error', message: 'Overloaded' } }
        : { text: `answered by ${request.body.model}` },
    );
    const result = await run(['-p', 'hi', '--model', 'opus', '--fallback-model', 'haiku']);
    expect(result.code).toBe(0);
    expect(result.stdout).toBe('answered by claude-haiku-5-5\n');
    expect(result.stderr).toContain('using the fallback model claude-haiku-5-5 from now on');
  });

  it('--settings adds settings from JSON text, and --setting-sources leaves the project files out', async () => {
    claudeProject({ permissions: { deny: ['Bash(touch:*)'] } });
    t.mock.script({ toolCalls: [{ name: 'bash', args: { command: 'touch x' } }] }, { text: 'ok' });
    const result = await run([
      '-p',
      'go',
      '--setting-sources',
      'user',
      '--settings',
      '{"permissions":{"allow":["Bash(touch:*)"]}}',
    ]);
    expect(result.code).toBe(0);
    expect(existsSync(path.join(t.project, 'x'))).toBe(true);
  });

  it("--strict-mcp-config starts none of the settings' servers", async () => {
    outriderUser({ mcpServers: { broken: { command: '/nonexistent/server' } } });
    t.mock.script({ text: 'ok' }, { text: 'ok' });
    const loose = await run(['-p', 'hi']);
    expect(loose.stderr).toContain('broken');
    const strict = await run(['-p', 'hi', '--strict-mcp-config']);
    expect(strict.code).toBe(0);
    expect(strict.stderr).not.toContain('broken');
  });
});

describe('~/.claude.json (claude mcp add)', () => {
  it("starts the user-scope and this folder's local-scope servers, and the model can call them", async () => {
    write(path.join(t.home, '.claude.json'), {
      numStartups: 12,
      mcpServers: { everything: { type: 'stdio', command: MCP_BIN.everything, args: [] } },
      projects: {
        [t.project]: { mcpServers: { local: { command: MCP_BIN.everything } }, history: [] },
        '/some/other/project': { mcpServers: { elsewhere: { command: '/nonexistent' } } },
      },
    });
    t.mock.script(
      { toolCalls: [{ name: 'mcp__everything__echo', args: { message: 'hello from claude.json' } }] },
      { text: 'ok' },
    );
    const result = await run(['-p', 'echo', '--output-format', 'stream-json', '--allowedTools', 'mcp__everything']);
    expect(result.code).toBe(0);
    const init = JSON.parse(result.stdout.split('\n')[0]!);
    expect(init.mcp_servers).toEqual(
      expect.arrayContaining([
        { name: 'everything', status: 'connected' },
        { name: 'local', status: 'connected' },
      ]),
    );
    expect(init.mcp_servers.map((s: { name: string }) => s.name)).not.toContain('elsewhere');
    expect(toolResults(t.mock.requests[1]!)[0]).toContain('hello from claude.json');
  });
});

describe('--doctor explains the permission rules', () => {
  it('lists each rule, which list it is in and which calls it covers, with rules that do nothing named', async () => {
    claudeProject({ permissions: { deny: ['Read(./secrets/**)'], ask: ['Bash(git push:*)'] } });
    const result = await run(['--doctor', '--allowedTools', 'WebFetch(domain:docs.test)', 'WebSearch']);
    const text = result.stdout;
    expect(text).toContain('permission rules (deny wins, then ask, then allow):');
    expect(text).toContain(
      `deny Read(./secrets/**): read_file, grep, glob, list_dir: paths matching ./secrets/** from ${t.project}`,
    );
    expect(text).toContain(
      'ask Bash(git push:*): bash: commands that are "git push" or start with "git push " (asks every time)',
    );
    expect(text).toContain('allow WebFetch(domain:docs.test): web_fetch: fetches from docs.test (runs without asking)');
    expect(text).toContain('"WebSearch" does nothing: outrider has no WebSearch tool');
  });
});

describe('MCP resources and prompts, as Claude Code offers them', () => {
  const everything = () => outriderUser({ mcpServers: { everything: { command: MCP_BIN.everything } } });

  it('resources are two tools: list them, read one', async () => {
    everything();
    t.mock.script(
      { toolCalls: [{ name: 'list_mcp_resources', args: {} }] },
      {
        toolCalls: [
          { name: 'read_mcp_resource', args: { server: 'everything', uri: 'demo://resource/static/document/architecture.md' } },
          { name: 'read_mcp_resource', args: { server: 'nope', uri: 'x' } },
        ],
      },
      { text: 'read it' },
    );
    const result = await run(['-p', 'what resources are there?']);
    expect(result.code).toBe(0);
    const [listed] = toolResults(t.mock.requests[1]!);
    expect(listed).toContain('everything demo://resource/static/document/architecture.md architecture.md (text/markdown)');
    const [read, missing] = toolResults(t.mock.requests[2]!).slice(1);
    expect(read).toContain('Architecture');
    expect(missing).toBe('No running MCP server "nope" offers resources; those that do: everything.');
  });

  it("/mcp__server__prompt args sends the server's prompt, its arguments filled in order", async () => {
    everything();
    t.mock.script({ text: 'sunny' });
    const result = await run(['-p', '/mcp__everything__args-prompt Paris Texas']);
    expect(result.code).toBe(0);
    const sent = JSON.stringify(t.mock.requests[0]!.body.messages);
    expect(sent).toContain('Paris');
    expect(sent).toContain('Texas');
    expect(sent).not.toContain('/mcp__everything__args-prompt');
  });
});
