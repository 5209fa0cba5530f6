/**
 * The provider key cannot be read back through /proc: not from outrider's own environment
 * block (`/proc/$PPID/environ` from a command it runs, in any encoding), not from rg's (which
 * the grep tool starts), and no tool opens a process file at all.
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { secretForms } from '../../src/core/platform/secret-forms.js';
import type { RecordedRequest } from '../support/mock-provider.js';
import { useMockProject } from '../support/e2e-project.js';
import { BIN, ESM_RUNNER, runCli } from '../support/run-cli.js';
import { until } from '../support/until.js';

const t = useMockProject();
/** A key the environment gives under its own name and once more under another (a user's `export COPY=$KEY`). */
const KEY = `sk-ant-api03-${Math.random().toString(36).slice(2)}-exposure-probe`;

/** The tool results of the run's last request, joined. */
function toolResults(requests: RecordedRequest[]): string {
  const messages = requests.at(-1)!.body.messages as Array<{ content: unknown }>;
  return messages
    .flatMap((m) => (Array.isArray(m.content) ? m.content : []))
    .filter((b: { type: string }) => b.type === 'tool_result')
    .map((b: { content: unknown }) => JSON.stringify(b.content))
    .join('\n');
}

/** One model turn that calls bash with each command in yolo, then ends. */
async function runCommands(commands: string[], entry?: string) {
  t.mock.respond((request) =>
    request.body.messages.length === 1
      ? { toolCalls: commands.map((command) => ({ name: 'bash', args: { command } })) }
      : { text: 'done' },
  );
  const env = { ...t.env, ANTHROPIC_API_KEY: KEY, COPY_OF_KEY: `Bearer ${KEY}` };
  const result = await runCli(['-p', 'look', '--yolo'], { cwd: t.project, env, ...(entry ? { entry } : {}) });
  expect(result.stderr).toBe('');
  expect(result.code).toBe(0);
  return toolResults(t.mock.requests);
}

describe.each([
  ['the headless bundle', undefined],
  ['the ES module bundle (the TUI path)', ESM_RUNNER],
])("outrider's own environment block, through %s", (_name, entry) => {
  it('holds neither the key variable nor the key: a command sees neither by name or in any encoding', async () => {
    const results = await runCommands(
      [
        "tr '\\0' '\\n' < /proc/$PPID/environ | cut -d= -f1 | sort | tr '\\n' ' '",
        'base64 -w0 /proc/$PPID/environ',
        "grep -a -c 'exposure-probe' /proc/$PPID/environ; true",
      ],
      entry,
    );
    const [names, encoded, count] = results.split('\n');
    expect(names).toContain('ANTHROPIC_BASE_URL');
    expect(names).not.toContain('ANTHROPIC_API_KEY');
    expect(names).not.toContain('COPY_OF_KEY');
    // The block itself is clean, not merely scrubbed on the way out: no redaction was needed.
    expect(encoded).not.toContain('[redacted]');
    const decoded = Buffer.from(JSON.parse(encoded!).replace(/\n\nexit code \d+$/, ''), 'base64').toString('utf8');
    expect(decoded).toContain('ANTHROPIC_BASE_URL=');
    expect(decoded).not.toContain('exposure-probe');
    expect(count).toMatch(/^"0\b/);
    for (const form of secretForms(KEY)) expect(results).not.toContain(form);
  });
});

describe('while a run is under way', () => {
  it("the key is in no environment block of outrider's process, as another program of the user's would read it", async () => {
    let release = () => {};
    const held = new Promise<void>((resolve) => (release = resolve));
    t.mock.respond(async () => {
      await held;
      return { text: 'done' };
    });
    const env = { ...t.env, ANTHROPIC_API_KEY: KEY };
    const child = spawn(process.execPath, [BIN, '-p', 'hold'], {
      cwd: t.project,
      env: { PATH: process.env.PATH ?? '', HOME: t.home, ...env },
      stdio: 'ignore',
    });
    try {
      await until(() => t.mock.requests.length === 1, { what: 'the run to reach the model' });
      const environ = readFileSync(`/proc/${child.pid}/environ`, 'utf8');
      expect(environ).toContain('ANTHROPIC_BASE_URL=');
      expect(environ).not.toContain('ANTHROPIC_API_KEY');
      expect(environ).not.toContain(KEY);
      // …and the request still carried the key: it lives on in memory, not in the environment.
      const { headers } = t.mock.requests[0]!;
      expect(String(headers['x-api-key'] ?? headers.authorization)).toContain(KEY);
    } finally {
      release();
      await new Promise((resolve) => child.once('close', resolve));
    }
  });
});

describe('grep in count mode on /proc/self/environ', () => {
  it('is refused before rg starts (rg runs without the key as well: test/core/tools/grep.test.ts)', async () => {
    t.mock.respond((request) =>
      request.body.messages.length === 1
        ? { toolCalls: [{ name: 'grep', args: { pattern: 'sk-ant', path: '/proc/self/environ', output_mode: 'count' } }] }
        : { text: 'done' },
    );
    const result = await runCli(['-p', 'look'], { cwd: t.project, env: { ...t.env, ANTHROPIC_API_KEY: KEY } });
    expect(result.code).toBe(0);
    expect(toolResults(t.mock.requests)).toMatch(/under \/proc, where processes' environments, memory and arguments are/);
  });
});
