import { mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { useMockProject } from '../support/e2e-project.js';
import { TEST_KEY, runCli } from '../support/run-cli.js';

const t = useMockProject();

const run = (args: string[], extra: { stdin?: string; env?: Record<string, string> } = {}) =>
  runCli(args, { cwd: t.project, env: { ...t.env, ...extra.env }, stdin: extra.stdin });

function allFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile())
    .map((e) => path.join(e.parentPath, e.name));
}

describe('outrider -p', () => {
  it('prints the answer as text and exits 0', async () => {
    t.mock.script({ text: 'The config is parsed in src/config.ts.' });
    const result = await run(['-p', 'where is the config parsed?']);
    expect(result.stderr).toBe('');
    expect(result.stdout).toBe('The config is parsed in src/config.ts.\n');
    expect(result.code).toBe(0);
    expect(t.mock.requests[0]!.body.messages.at(-1).content.at(-1).text).toBe('where is the config parsed?');
  });

  it('reads the prompt from stdin', async () => {
    t.mock.script({ text: 'ok' });
    const result = await run(['-p'], { stdin: 'explain the build\n' });
    expect(result.code).toBe(0);
    expect(t.mock.requests[0]!.body.messages[0].content.at(-1).text).toBe('explain the build\n');
  });

  it('runs tools and answers from their results', async () => {
    writeFileSync(path.join(t.project, 'notes.txt'), 'alpha\nbeta\n');
    t.mock.script({ toolCalls: [{ name: 'read_file', args: { path: 'notes.txt' } }] }, { text: 'It lists alpha and beta.' });
    const result = await run(['-p', 'what is in notes.txt?']);
    expect(result.code).toBe(0);
    expect(result.stdout).toBe('It lists alpha and beta.\n');
    const toolResult = t.mock.requests[1]!.body.messages.at(-1).content[0];
    expect(toolResult.type).toBe('tool_result');
    expect(JSON.stringify(toolResult.content)).toContain('alpha');
  });

  it('json: one object with the result, session id, turns, usage, cost and duration', async () => {
    t.mock.script({ text: 'done', usage: { input: 1000, output: 50 } });
    const result = await run(['-p', 'hi', '--output-format', 'json']);
    expect(result.code).toBe(0);
    const out = JSON.parse(result.stdout);
    expect(out).toMatchObject({ type: 'result', subtype: 'success', is_error: false, result: 'done', num_turns: 1 });
    expect(out.session_id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(out.usage).toMatchObject({ input: 1000, output: 50 });
    expect(out.total_cost_usd).toBeGreaterThan(0);
    expect(out.duration_ms).toBeGreaterThanOrEqual(0);
    expect(out.jobs).toEqual([]);
  });

  it('events-json: an init line, every event, and a result line', async () => {
    t.mock.script({ toolCalls: [{ name: 'list_dir', args: {} }] }, { text: 'empty folder' });
    const result = await run(['-p', 'look', '--output-format', 'events-json']);
    expect(result.code).toBe(0);
    const lines = result.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines[0]).toMatchObject({
      type: 'system',
      subtype: 'init',
      tools: expect.arrayContaining(['read_file', 'agent_start']),
    });
    const types = lines.map((l) => l.type);
    expect(types).toContain('tool_start');
    expect(types).toContain('tool_end');
    expect(types).toContain('text_delta');
    expect(lines.at(-1)).toMatchObject({ type: 'result', result: 'empty folder' });
  });

  it('denies a write in headless mode without a flag, naming the flags that allow it', async () => {
    t.mock.script({ toolCalls: [{ name: 'write_file', args: { path: 'a.txt', content: 'x' } }] }, { text: 'could not write' });
    const result = await run(['-p', 'write a.txt']);
    expect(result.code).toBe(0);
    const toolResult = t.mock.requests[1]!.body.messages.at(-1).content[0];
    expect(toolResult.is_error).toBe(true);
    expect(JSON.stringify(toolResult.content)).toContain('--permission-mode accept-edits');
    expect(readdirSync(t.project)).not.toContain('a.txt');
  });

  it('--yolo lets the write happen', async () => {
    t.mock.script({ toolCalls: [{ name: 'write_file', args: { path: 'a.txt', content: 'x' } }] }, { text: 'written' });
    const result = await run(['-p', 'write a.txt', '--yolo']);
    expect(result.code).toBe(0);
    expect(readFileSync(path.join(t.project, 'a.txt'), 'utf8')).toBe('x');
  });

  it('exits 1 with a one-line reason when the provider rejects the key', async () => {
    t.mock.script({ fault: { kind: 'status', status: 401 } });
    const result = await run(['-p', 'hi']);
    expect(result.code).toBe(1);
    expect(result.stderr.trim()).toBe('outrider: Anthropic rejected the API key (401): check ANTHROPIC_API_KEY.');
    expect(result.stderr).not.toContain(TEST_KEY);
    t.mock.script({ fault: { kind: 'status', status: 401 } });
    const json = JSON.parse((await run(['-p', 'hi', '--output-format', 'json'])).stdout);
    expect(json).toMatchObject({
      subtype: 'error_during_execution',
      is_error: true,
      error: 'Anthropic rejected the API key (401): check ANTHROPIC_API_KEY.',
    });
  });

  it('exits 2 when no key is set, saying which variable to set', async () => {
    const result = await runCli(['-p', 'hi'], { cwd: t.project, env: { OUTRIDER_HOME: t.home } });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/set ANTHROPIC_API_KEY or OPENAI_API_KEY/);
    expect(t.mock.requests).toHaveLength(0);
  });

  it('exits 2 on a bad flag', async () => {
    const result = await run(['-p', 'hi', '--output-format', 'yaml']);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/output-format/);
    const agents = await run(['-p', 'hi', '--max-agents', '40']);
    expect(agents.code).toBe(2);
    expect(agents.stderr).toMatch(/--max-agents.*from 0 to 32/);
    expect(t.mock.requests).toHaveLength(0);
  });

  it('exits 2 with one line naming the file and key when settings are invalid', async () => {
    mkdirSync(path.join(t.project, '.outrider'));
    writeFileSync(path.join(t.project, '.outrider/settings.json'), JSON.stringify({ agents: { maxConcurrent: 'four' } }));
    const result = await run(['-p', 'hi']);
    expect(result.code).toBe(2);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stderr).toContain('.outrider/settings.json: agents.maxConcurrent');
    expect(t.mock.requests).toHaveLength(0);
  });

  it('talks to an OpenAI-compatible server with --provider openai --base-url', async () => {
    t.mock.script({ text: 'hello from a local model' });
    const result = await runCli(
      ['-p', 'hi', '--provider', 'openai', '--base-url', t.mock.openaiBaseURL, '--model', 'qwen2.5-coder'],
      {
        cwd: t.project,
        env: { OUTRIDER_HOME: t.home },
      },
    );
    expect(result.stdout).toBe('hello from a local model\n');
    expect(t.mock.requests[0]!.format).toBe('openai');
    expect(t.mock.requests[0]!.body.model).toBe('qwen2.5-coder');
  });

  it('runs each provider on its default model; gpt-5.5, a Responses model, stays on Chat Completions off OpenAI', async () => {
    t.mock.script({ text: 'from the default anthropic model' }, { text: 'from the default openai model' });
    expect((await run(['-p', 'hi'])).stdout).toBe('from the default anthropic model\n');
    expect(t.mock.requests[0]!.format).toBe('anthropic');
    expect(t.mock.requests[0]!.body.model).toBe('claude-sonnet-5');
    const openai = await runCli(['-p', 'hi', '--provider', 'openai', '--base-url', t.mock.openaiBaseURL], {
      cwd: t.project,
      env: { OUTRIDER_HOME: t.home },
    });
    expect(openai.stdout).toBe('from the default openai model\n');
    expect(t.mock.requests[1]!.format).toBe('openai');
    expect(t.mock.requests[1]!.path).toBe('/v1/chat/completions');
    expect(t.mock.requests[1]!.body.model).toBe('gpt-5.5');
  });

  it('--continue resumes the last session of this directory, and no file holds the key', async () => {
    t.mock.script({ text: 'first answer' }, { text: 'second answer' });
    expect((await run(['-p', 'first question'])).code).toBe(0);
    const second = await run(['-p', 'second question', '--continue', '--output-format', 'json']);
    expect(second.code).toBe(0);
    const texts = JSON.stringify(t.mock.requests[1]!.body.messages);
    expect(texts).toContain('first question');
    expect(texts).toContain('first answer');
    expect(t.mock.requests[1]!.body.system).toEqual(t.mock.requests[0]!.body.system);
    for (const file of allFiles(t.home)) expect(readFileSync(file, 'utf8')).not.toContain(TEST_KEY);
  });

  it("--resume with an id resumes that session; without one it lists this directory's sessions", async () => {
    t.mock.script({ text: 'one' }, { text: 'two' });
    const first = JSON.parse((await run(['-p', 'remember the word kiwi', '--output-format', 'json'])).stdout);
    const listing = await run(['--resume']);
    expect(listing.code).toBe(0);
    expect(listing.stdout).toContain(first.session_id);
    expect(listing.stdout).toContain('remember the word kiwi');
    const resumed = await run(['-p', 'which word?', '--resume', first.session_id.slice(0, 17), '--output-format', 'json']);
    expect(JSON.parse(resumed.stdout).session_id).toBe(first.session_id);
    expect(JSON.stringify(t.mock.requests[1]!.body.messages)).toContain('remember the word kiwi');
    const unknown = await run(['-p', 'x', '--resume', 'nope']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/no session "nope"/);
  });

  it('compacts and retries once when the provider says the prompt is too long', async () => {
    t.mock.script({ text: 'a1' }, { text: 'a2' }, { text: 'a3' });
    for (const q of ['q1', 'q2', 'q3']) expect((await run(['-p', q, ...(q === 'q1' ? [] : ['--continue'])])).code).toBe(0);
    t.mock.script(
      { fault: { kind: 'status', status: 400, message: 'prompt is too long: 250000 tokens > 200000 maximum' } },
      { text: 'SUMMARY: the user asked q1, q2, q3' },
      { text: 'answer after compaction' },
    );
    const result = await run(['-p', 'q4', '--continue', '--output-format', 'stream-json']);
    expect(result.code).toBe(0);
    const lines = result.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines.some((l) => l.type === 'system' && l.subtype === 'compact_boundary')).toBe(true);
    expect(lines.at(-1)).toMatchObject({ type: 'result', result: 'answer after compaction' });
    const [tooLong, summary, retry] = t.mock.requests.slice(-3).map((r) => r.body);
    expect(summary.tools ?? []).toEqual([]);
    expect(JSON.stringify(summary.system)).toBe(JSON.stringify(tooLong.system));
    expect(JSON.stringify(retry.messages[0])).toContain('[Summary of the earlier conversation]');
    expect(JSON.stringify(retry.messages.at(-1))).toContain('q4');
  });
});
