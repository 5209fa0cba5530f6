import { execFileSync } from 'node:child_process';
import { chmodSync, closeSync, existsSync, mkdirSync, mkdtempSync, openSync, writeFileSync, writeSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import type { ModelRequest } from '../../../src/core/providers/types.js';
import type { SandboxProbe } from '../../../src/core/sandbox/plan.js';
import type { OpenedSession, SessionSetup } from '../../../src/core/session/opened-session.js';
import { type TestDirs, testDirs, useTestSessions } from '../../support/test-session.js';
import { until } from '../../support/until.js';

// The sandbox wired through a real session: settings and flags → openSession → the gate's
// decision → the bash tool. Inside bwrap's pid namespace, /proc/1 is bwrap itself.

const open = useTestSessions();
const missing: SandboxProbe = { ok: false, reason: 'bwrap was not found on PATH' };

/** Runs one bash call through a session and returns what the model got back. */
async function bashThrough(
  command: string,
  options: { flags?: SessionSetup['flags']; dirs?: TestDirs; sandboxProbe?: SandboxProbe } = {},
) {
  const opened = await open(
    (_request: ModelRequest, index: number) =>
      index === 0 ? { toolCalls: [{ name: 'bash', args: { command } }] } : { text: 'done' },
    options,
  );
  await opened.submit('run it');
  const result = opened.stream.requests[1]!.messages.at(-1)!.content[0];
  if (result?.type !== 'tool_result') throw new Error('no tool result');
  return { content: result.content as string, warnings: opened.session.warnings, cwd: opened.cwd };
}

function settingsFiles(where: TestDirs, files: { user?: object; project?: object }): void {
  if (files.user) {
    mkdirSync(where.env.OUTRIDER_HOME!, { recursive: true });
    writeFileSync(path.join(where.env.OUTRIDER_HOME!, 'settings.json'), JSON.stringify(files.user));
  }
  if (files.project) {
    mkdirSync(path.join(where.cwd, '.outrider'), { recursive: true });
    writeFileSync(path.join(where.cwd, '.outrider', 'settings.json'), JSON.stringify(files.project));
  }
}

describe('the sandbox in a session', () => {
  it.each(['default', 'accept-edits', 'plan'] as const)('%s mode: a command judged read-only runs in bwrap', async (mode) => {
    const out = await bashThrough('cat /proc/1/comm', { flags: { permissionMode: mode } });
    expect(out.content).toBe('bwrap');
    expect(out.warnings).toEqual([]);
  });

  it('yolo runs commands as written by default', async () => {
    const out = await bashThrough('cat /proc/1/comm; touch made', { flags: { permissionMode: 'yolo' } });
    expect(out.content).not.toBe('bwrap');
    expect(existsSync(path.join(out.cwd, 'made'))).toBe(true);
  });

  it('--sandbox workspace-write fences yolo: the workspace is writable, the rest is not', async () => {
    const out = await bashThrough('cat /proc/1/comm; touch made; touch /etc/outrider-pwned-by-yolo', {
      flags: { permissionMode: 'yolo', sandbox: 'workspace-write' },
    });
    expect(out.content).toMatch(/^bwrap\ntouch: cannot touch '\/etc\/outrider-pwned-by-yolo': Read-only file system/);
    expect(existsSync(path.join(out.cwd, 'made'))).toBe(true);
    expect(existsSync('/etc/outrider-pwned-by-yolo')).toBe(false);
  });

  it("the user's settings choose the sandbox; an untrusted project's settings cannot turn it off", async () => {
    const where = testDirs();
    settingsFiles(where, { user: { sandbox: 'read-only' }, project: { sandbox: 'off', sandboxNetwork: true } });
    const out = await bashThrough('touch made', { dirs: where, flags: { permissionMode: 'yolo' } });
    expect(out.content).toMatch(/Read-only file system/);
    expect(existsSync(path.join(where.cwd, 'made'))).toBe(false);
    const projectFile = path.join(where.cwd, '.outrider', 'settings.json');
    expect(out.warnings).toEqual([
      expect.stringMatching(
        new RegExp(`^ignored sandbox, sandboxNetwork from ${projectFile.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: `),
      ),
    ]);
  });

  it("a project's settings may make the sandbox stricter without trust", async () => {
    const where = testDirs();
    settingsFiles(where, { user: {}, project: { sandbox: 'read-only', sandboxNetwork: false } });
    const out = await bashThrough('touch made', { dirs: where, flags: { permissionMode: 'yolo' } });
    expect(out.content).toMatch(/Read-only file system/);
    expect(out.warnings).toEqual([]);
  });

  it('without bubblewrap: one warning, and commands judged read-only rest on the check alone', async () => {
    const out = await bashThrough('cat /proc/1/comm', { sandboxProbe: missing });
    expect(out.content).not.toBe('bwrap');
    expect(out.warnings).toEqual([
      'no OS sandbox: bwrap was not found on PATH. Commands judged read-only run on the command check alone; install bubblewrap (apt-get install bubblewrap) to fence them.',
    ]);
  });

  it('without bubblewrap, a sandbox the user asked for refuses approved commands rather than run them unfenced', async () => {
    const out = await bashThrough('touch made', {
      sandboxProbe: missing,
      flags: { permissionMode: 'yolo', sandbox: 'workspace-write' },
    });
    expect(out.content).toMatch(/^bash did not run: the sandbox is set to workspace-write, but bubblewrap cannot be used here/);
    expect(existsSync(path.join(out.cwd, 'made'))).toBe(false);
    expect(out.warnings[0]).toMatch(
      /With the sandbox set to workspace-write, commands that need approval will not run; use --sandbox off/,
    );
  });

  /**
   * A bwrap on PATH (outside the workspace) whose first start, the session's probe, blocks on a
   * FIFO until the test writes it and then says the sandbox holds; every later start (a command
   * fenced by it) prints `fenced`. `probe` is how the probe's start ends: 'holds' or 'silent'.
   */
  function fakeBwrap(probe: 'holds' | 'silent'): { started: () => boolean; release: () => void } {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'outrider-fake-bwrap-'));
    const fifo = path.join(dir, 'release');
    const started = path.join(dir, 'started');
    execFileSync('mkfifo', [fifo]);
    const answer = probe === 'holds' ? 'echo outrider-sandbox-ok' : 'true';
    // The FIFO is held open (read-write, which does not block) before `started` appears: a
    // release written before the read starts waits in the pipe instead of being dropped.
    const script = `#!/bin/sh\nif [ ! -e '${started}' ]; then exec 3<>'${fifo}'; : > '${started}'; read _ <&3; ${answer}; exit 0; fi\necho fenced\n`;
    writeFileSync(path.join(dir, 'bwrap'), script);
    chmodSync(path.join(dir, 'bwrap'), 0o755);
    vi.stubEnv('PATH', `${dir}:${process.env.PATH ?? ''}`);
    return {
      started: () => existsSync(started),
      // Opened read-write, which never blocks: a probe that never started fails the test, not hangs it.
      release: () => {
        const fd = openSync(fifo, 'r+');
        writeSync(fd, 'go\n');
        closeSync(fd);
      },
    };
  }

  /** The sandbox notice a front end subscribing now would get (state events are replayed). */
  function sandboxNotice(session: OpenedSession): string | undefined {
    const texts: string[] = [];
    session.events.subscribe(({ event }) => {
      if (event.type === 'notice') texts.push(event.text);
    })();
    return texts.find((text) => text.startsWith('no OS sandbox:'));
  }

  it('no bwrap starts until a command needs a fence; the first one waits for the probe and runs as it found', async () => {
    const bwrap = fakeBwrap('holds');
    try {
      const opened = await open((_request: ModelRequest, index: number) =>
        index === 1 ? { toolCalls: [{ name: 'bash', args: { command: 'echo unfenced' } }] } : { text: 'done' },
      );
      // A turn without a command: no probe, no process.
      await opened.submit('just answer');
      expect(bwrap.started()).toBe(false);
      const turn = opened.submit('run it');
      // The command waits on the probe's bwrap, blocked on its FIFO: nothing runs yet.
      await until(bwrap.started, { what: 'the probe to start with the first command' });
      expect(opened.stream.requests).toHaveLength(2);
      bwrap.release();
      await turn;
      const result = opened.stream.requests[2]!.messages.at(-1)!.content[0];
      // Run before the probe answered, the command would have gone unfenced ("unfenced").
      expect(result).toMatchObject({ type: 'tool_result', content: 'fenced' });
      expect(opened.session.warnings).toEqual([]);
    } finally {
      vi.unstubAllEnvs();
    }
  });

  it('what the probe finds reaches a front end that subscribes later', async () => {
    const bwrap = fakeBwrap('silent');
    try {
      const opened = await open((_request: ModelRequest, index: number) =>
        index === 0 ? { toolCalls: [{ name: 'bash', args: { command: 'echo hi' } }] } : { text: 'done' },
      );
      const turn = opened.submit('run it');
      await until(bwrap.started, { what: 'the probe to start' });
      bwrap.release();
      await turn;
      const notice = await until(() => sandboxNotice(opened.session), { what: "the probe's warning" });
      expect(notice).toMatch(/bwrap starts, but the sandbox does not hold: the check printed nothing/);
      // Without a working sandbox, the read-only command ran on the command check alone.
      expect(opened.stream.requests[1]!.messages.at(-1)!.content[0]).toMatchObject({ type: 'tool_result', content: 'hi' });
    } finally {
      vi.unstubAllEnvs();
    }
  });

  it('stopping the turn ends the first command while it still waits for a stuck probe', async () => {
    const bwrap = fakeBwrap('holds'); // never released
    try {
      const opened = await open((_request: ModelRequest, index: number) =>
        index === 0 ? { toolCalls: [{ name: 'bash', args: { command: 'echo hi' } }] } : { text: 'done' },
      );
      const stop = new AbortController();
      const turn = opened.session.session.submit('run it', stop.signal);
      await until(bwrap.started, { what: 'the probe to start' });
      stop.abort();
      expect((await turn).cause).toEqual({ kind: 'aborted' });
      expect(opened.stream.requests).toHaveLength(1);
      // Ended while the probe still ran: it has said nothing yet (waiting on it, the turn would
      // have ended only at the probe's own 10 s timeout, after its warning).
      expect(sandboxNotice(opened.session)).toBeUndefined();
      await opened.session.close();
      const notice = await until(() => sandboxNotice(opened.session), { what: "the closed probe's warning" });
      expect(notice).toMatch(/the session ended before the probe did/);
    } finally {
      vi.unstubAllEnvs();
    }
  });

  it('a session that closes ends a probe still running: no stuck bwrap keeps the process alive', async () => {
    const bwrap = fakeBwrap('holds'); // never released: only a kill ends it
    try {
      const opened = await open((_request: ModelRequest, index: number) =>
        index === 0 ? { toolCalls: [{ name: 'bash', args: { command: 'echo hi' } }] } : { text: 'done' },
      );
      const turn = opened.submit('run it');
      await until(bwrap.started, { what: 'the probe to start' });
      await opened.session.close();
      await turn;
      // Killed by the close, not by the probe's own 10 s timeout (that one says "killed by SIGKILL").
      const notice = await until(() => sandboxNotice(opened.session), { what: "the closed probe's warning" });
      expect(notice).toMatch(/the sandbox does not start: the session ended before the probe did/);
    } finally {
      vi.unstubAllEnvs();
    }
  });
});
