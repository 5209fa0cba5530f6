import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { RecordedRequest, Reply } from '../support/mock-provider.js';
import { useMockProject } from '../support/e2e-project.js';
import { loadRecorder, loadedDistChunks } from '../support/load-recorder.js';
import { ESM_RUNNER, REPO, runCli } from '../support/run-cli.js';

const t = useMockProject();

const run = (args: string[], extra: { env?: Record<string, string>; timeoutMs?: number; entry?: string } = {}) =>
  runCli(args, { cwd: t.project, env: { ...t.env, ...extra.env }, timeoutMs: extra.timeoutMs, entry: extra.entry });

interface WireBlock {
  type: string;
  id?: string;
  name?: string;
  tool_use_id?: string;
  is_error?: boolean;
  content?: string | Array<{ type: string; text?: string }>;
}

/** The tool results of an Anthropic request, oldest first. */
function toolResults(request: RecordedRequest): WireBlock[] {
  return (request.body.messages as Array<{ content: WireBlock[] | string }>)
    .flatMap((m) => (Array.isArray(m.content) ? m.content : []))
    .filter((b) => b.type === 'tool_result');
}

function resultText(block: WireBlock): string {
  const content = block.content ?? '';
  return typeof content === 'string' ? content : content.map((c) => c.text ?? '').join('');
}

const isChild = (r: RecordedRequest) => JSON.stringify(r.body.system).includes('You are a sub-agent');

describe('--max-turns', () => {
  it('stops a model that keeps calling tools after one turn: exit 1, one request, the limit named', async () => {
    t.mock.respond(() => ({ toolCalls: [{ name: 'list_dir', args: {} }] }));
    const result = await run(['-p', 'keep looking', '--max-turns', '1']);
    expect(result.code).toBe(1);
    expect(t.mock.requests).toHaveLength(1);
    expect(result.stderr).toContain('reached the limit of 1 turns');
    expect(result.stderr).toContain('--max-turns');
  });

  it('headless has a turn cap of its own when none is set', async () => {
    let n = 0;
    // A model that never stops calling tools, each call different (no repeated failure).
    t.mock.respond(() => ({ toolCalls: [{ name: 'glob', args: { pattern: `*.${++n}` } }] }));
    const result = await run(['-p', 'keep looking forever']);
    expect(result.code).toBe(1);
    expect(t.mock.requests).toHaveLength(100);
    expect(result.stderr).toContain('reached the limit of 100 turns (raise it with --max-turns');
  });

  it('stops a model stuck making the same failing call, saying so', async () => {
    t.mock.respond(() => ({ toolCalls: [{ name: 'read_file', args: { path: 'missing.txt' } }] }));
    const result = await run(['-p', 'read it']);
    expect(result.code).toBe(1);
    expect(t.mock.requests).toHaveLength(5);
    expect(result.stderr).toContain('the same call failed 5 times in a row (read_file {"path":"missing.txt"})');
  });
});

describe('--permission-mode', () => {
  it('accept-edits: write_file creates a file in the project, but bash `touch x` is still denied headless', async () => {
    t.mock.script(
      { toolCalls: [{ name: 'write_file', args: { path: 'plan.md', content: 'step 1\n' } }] },
      { toolCalls: [{ name: 'bash', args: { command: 'touch x' } }] },
      { text: 'wrote the plan; could not touch x' },
    );
    const result = await run(['-p', 'write the plan', '--permission-mode', 'accept-edits']);
    expect(result.code).toBe(0);
    expect(readFileSync(path.join(t.project, 'plan.md'), 'utf8')).toBe('step 1\n');
    const [write, bash] = toolResults(t.mock.requests[2]!);
    expect(write!.is_error).toBeFalsy();
    expect(bash!.is_error).toBe(true);
    expect(resultText(bash!)).toMatch(/bash needs approval, and there is no one to ask in headless mode: rerun with --yolo/);
    expect(existsSync(path.join(t.project, 'x'))).toBe(false);
  });

  it('plan: write_file is denied with the plan-mode message, a read-only `ls` runs', async () => {
    writeFileSync(path.join(t.project, 'existing-file.txt'), 'hello\n');
    t.mock.script(
      { toolCalls: [{ name: 'write_file', args: { path: 'new.txt', content: 'x' } }] },
      { toolCalls: [{ name: 'bash', args: { command: 'ls' } }] },
      { text: 'planned' },
    );
    const result = await run(['-p', 'plan the change', '--permission-mode', 'plan']);
    expect(result.code).toBe(0);
    const [write, ls] = toolResults(t.mock.requests[2]!);
    expect(write!.is_error).toBe(true);
    expect(resultText(write!)).toMatch(/^plan mode: write_file is not allowed/);
    expect(existsSync(path.join(t.project, 'new.txt'))).toBe(false);
    expect(ls!.is_error).toBeFalsy();
    expect(resultText(ls!)).toContain('existing-file.txt');
  });
});

describe('--tool-mode text', () => {
  it('sends no native tools, describes them in the system text, and runs a <tool_call> from the reply', async () => {
    writeFileSync(path.join(t.project, 'marker-file.txt'), 'm\n');
    t.mock.script(
      { text: 'Let me look.\n<tool_call>{"name":"list_dir","arguments":{}}</tool_call>' },
      { text: 'The folder holds marker-file.txt.' },
    );
    // A local OpenAI-compatible server without tool support: no key needed.
    const result = await runCli(
      [
        '-p',
        'what is here?',
        '--provider',
        'openai',
        '--base-url',
        t.mock.openaiBaseURL,
        '--model',
        'local-model',
        '--tool-mode',
        'text',
      ],
      { cwd: t.project, env: { OUTRIDER_HOME: t.home } },
    );
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toBe('The folder holds marker-file.txt.\n');
    expect(t.mock.requests).toHaveLength(2);
    const [first, second] = t.mock.requests as [RecordedRequest, RecordedRequest];
    expect(first.format).toBe('openai');
    expect(first.body.tools ?? []).toEqual([]);
    expect(second.body.tools ?? []).toEqual([]);
    const system = first.body.messages[0];
    expect(system.role).toBe('system');
    expect(system.content).toContain('<tool_call>');
    expect(system.content).toContain('## list_dir');
    expect(system.content).toContain('## read_file');
    const followUp = JSON.stringify(second.body.messages.slice(1));
    expect(followUp).toContain('<tool_result name=\\"list_dir\\">');
    expect(followUp).toContain('marker-file.txt');
    expect(followUp).not.toContain('"tool_calls"');
  });
});

describe('retries', () => {
  it('a 529 then a success: one retry line on stderr, exit 0', async () => {
    // retry-after: 0 makes the retry immediate (no jittered backoff), so the test stays fast.
    t.mock.script(
      { fault: { kind: 'status', status: 529, retryAfter: 0, type: 'overloaded_error', message: 'Overloaded' } },
      { text: 'made it' },
    );
    const result = await run(['-p', 'hi']);
    expect(result.code).toBe(0);
    expect(result.stdout).toBe('made it\n');
    const lines = result.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    // An overloaded model pauses every call to the provider; it spends no retry.
    expect(lines[0]).toMatch(/^outrider: overloaded \(529\); calls to this provider pause for 0s$/);
    expect(t.mock.requests).toHaveLength(2);
  });
});

describe('--max-budget-tokens', () => {
  it('stops a running sub-agent past the budget and refuses a new one with an error naming the budget', async () => {
    mkdirSync(path.join(t.project, 'src'));
    writeFileSync(path.join(t.project, 'src/app.ts'), 'export const app = 1;\n');
    const parentReplies: Reply[] = [
      { toolCalls: [{ name: 'agent_start', args: { task: 'Read src/app.ts and say what it exports' } }] },
      { toolCalls: [{ name: 'agent_poll', args: { id: 'sub-1' } }] },
      { toolCalls: [{ name: 'agent_start', args: { task: 'Another investigation' } }] },
      { text: 'The budget is spent.' },
    ];
    let parentCalls = 0;
    t.mock.respond((request): Reply => {
      if (isChild(request)) {
        // The child's first call fits the budget as asked (its input and 8,192 tokens of output), but its
        // answer alone blows the budget; it is stopped before a second.
        return request.body.messages.length === 1
          ? { toolCalls: [{ name: 'read_file', args: { path: 'src/app.ts' } }], usage: { input: 25_000, output: 10 } }
          : { text: 'app exports app', usage: { input: 10, output: 5 } };
      }
      const reply = parentReplies[parentCalls++] ?? { text: 'unexpected extra request' };
      return { ...reply, usage: { input: 10, output: 5 } };
    });
    const result = await run(['-p', 'investigate', '--max-budget-tokens', '20000', '--output-format', 'json']);
    expect(result.code).toBe(0);
    const out = JSON.parse(result.stdout);
    expect(out.result).toBe('The budget is spent.');
    expect(out.jobs).toHaveLength(1);
    expect(out.jobs[0]).toMatchObject({ id: 'sub-1', status: 'aborted' });

    const parentRequests = t.mock.requests.filter((r) => !isChild(r));
    expect(parentRequests).toHaveLength(4);
    expect(t.mock.requests.filter(isChild)).toHaveLength(1);
    const last = parentRequests[3]!;
    const lastAssistant = (last.body.messages as Array<{ role: string; content: WireBlock[] }>)
      .filter((m) => m.role === 'assistant')
      .at(-1)!;
    const secondStart = lastAssistant.content.find((b) => b.type === 'tool_use' && b.name === 'agent_start')!;
    expect(secondStart).toBeDefined();
    const refusal = toolResults(last).find((b) => b.tool_use_id === secondStart.id)!;
    expect(refusal.is_error).toBe(true);
    expect(resultText(refusal)).toMatch(/budget of 20000 tokens is spent/);
    expect(resultText(refusal)).toContain('--max-budget-tokens');
  });
});

describe('--help', () => {
  const heavy: Array<{ what: string; marker: RegExp }> = [
    { what: 'the Anthropic SDK', marker: /anthropic-version/ },
    { what: 'the OpenAI SDK', marker: /OpenAI-Project/ },
    { what: 'Ink', marker: /yoga/ },
    { what: 'React', marker: /react\.transitional\.element/ },
  ];

  it('prints usage and exits 0 without loading the SDKs, Ink or React', async () => {
    const recorder = loadRecorder();
    const result = await run(['--help'], { env: { NODE_OPTIONS: recorder.nodeOptions } });
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^Usage: outrider \[options\]/);
    for (const flag of ['--print', '--max-turns', '--permission-mode', '--tool-mode', '--max-budget-tokens']) {
      expect(result.stdout).toContain(flag);
    }
    const chunks = loadedDistChunks(recorder.log);
    // The recorder works: the entry and the command-line parser were seen.
    expect(chunks.map((c) => c.file)).toContain('cli.js');
    expect(chunks.some((c) => c.file.startsWith('program-'))).toBe(true);
    for (const { what, marker } of heavy) {
      const culprit = chunks.find((c) => marker.test(c.text));
      expect(culprit, `--help loaded ${what} (${culprit?.file})`).toBeUndefined();
    }
  });

  it('the same recorder does see the Anthropic SDK load for a real prompt (the ES module bundle)', async () => {
    const recorder = loadRecorder();
    t.mock.script({ text: 'ok' });
    // The launcher runs -p from the CommonJS bundle (below); the recorder sees the ES module one's chunks.
    const result = await run(['-p', 'hi'], { env: { NODE_OPTIONS: recorder.nodeOptions }, entry: ESM_RUNNER });
    expect(result.code).toBe(0);
    const chunks = loadedDistChunks(recorder.log);
    expect(chunks.some((c) => /anthropic-version/.test(c.text))).toBe(true);
    expect(chunks.some((c) => /yoga/.test(c.text))).toBe(false);
  });

  it('the headless CommonJS bundle holds the SDKs but neither Ink nor React', () => {
    const bundle = readFileSync(path.join(REPO, 'dist/headless.cjs'), 'utf8');
    for (const { what, marker } of heavy) {
      const expected = what.includes('SDK');
      expect(marker.test(bundle), `${what} ${expected ? 'missing from' : 'in'} dist/headless.cjs`).toBe(expected);
    }
  });
});
