import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { useMockProject } from '../support/e2e-project.js';
import { runCli } from '../support/run-cli.js';

/** Inputs the binary reads at start-up are bounded, and a bad one is named in one line. */
const t = useMockProject();

const run = (args: string[], extra: { stdin?: string } = {}) =>
  runCli(args, { cwd: t.project, env: t.env, stdin: extra.stdin, timeoutMs: 10_000 });

function projectSettingsPath(): string {
  const file = path.join(t.project, '.outrider', 'settings.json');
  mkdirSync(path.dirname(file), { recursive: true });
  return file;
}

describe('the headless prompt', () => {
  it('on stdin, past 10 MB, is refused with the limit named and never sent', async () => {
    const result = await run(['-p'], { stdin: 'x'.repeat(11 * 1024 * 1024) });
    expect(result.code).toBe(2);
    expect(result.stderr.trim().split('\n')).toEqual([
      expect.stringMatching(/the prompt on stdin is over the 10 MB limit for a headless prompt; .*file/),
    ]);
    expect(t.mock.requests).toHaveLength(0);
  });
});

describe('settings files', () => {
  it('a FIFO is refused at once, named, instead of hanging the start', async () => {
    const file = projectSettingsPath();
    execFileSync('mkfifo', [file]);
    const result = await run(['-p', 'hi']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`${file}: cannot read the settings file: it is a FIFO (named pipe), not a regular file`);
  });

  it('nested thousands of levels deep is refused with the file named, not a stack overflow', async () => {
    const file = projectSettingsPath();
    writeFileSync(file, `{ "models": ${'['.repeat(200_000)}${']'.repeat(200_000)} }`);
    const result = await run(['-p', 'hi']);
    expect(result.code).toBe(2);
    expect(result.stderr).not.toContain('Maximum call stack');
    expect(result.stderr.trim()).toMatch(
      new RegExp(`^outrider: ${file}: nested more than 64 levels deep at line 1, column \\d+`),
    );
  });

  it('over 1 MB is refused with its size', async () => {
    const file = projectSettingsPath();
    writeFileSync(file, `{ "model": "${'m'.repeat(2 * 1024 * 1024)}" }`);
    const result = await run(['-p', 'hi']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`${file}: the settings file is 2.0 MB; the limit is 1 MB`);
  });
});

describe('resuming from an empty transcript', () => {
  function emptySession(): string {
    const id = '20260101-000000-aaaaaa';
    const file = path.join(t.home, 'sessions', id, 'transcript.jsonl');
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, '');
    return file;
  }

  it('--continue says the newest transcript is empty and where it is', async () => {
    const file = emptySession();
    const result = await run(['-p', 'again', '--continue']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`the newest transcript, ${file}, is empty`);
  });

  it("--resume <id> says that session's transcript is empty and where it is", async () => {
    const file = emptySession();
    const result = await run(['-p', 'again', '--resume', '20260101-000000-aaaaaa']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`session 20260101-000000-aaaaaa cannot be resumed: its transcript ${file} is empty`);
  });
});
