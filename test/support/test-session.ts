import { mkdirSync, mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach } from 'vitest';
import type { SessionEvent } from '../../src/core/session/event-stream.js';
import type { ModelRequest } from '../../src/core/providers/types.js';
import { openSession } from '../../src/core/session/open-session.js';
import type { OpenedSession, SessionSetup } from '../../src/core/session/opened-session.js';
import { type FakeReply, fakeStream } from './fake-stream.js';

/** A project folder and a private state folder for one test session. */
export interface TestDirs {
  cwd: string;
  env: Record<string, string>;
}

export function testDirs(): TestDirs {
  const base = mkdtempSync(path.join(os.tmpdir(), 'outrider-session-'));
  const cwd = path.join(base, 'project');
  mkdirSync(cwd);
  return { cwd, env: { OUTRIDER_HOME: path.join(base, 'home'), ANTHROPIC_API_KEY: 'sk-ant-test-key-123456' } };
}

/**
 * Real sessions (openSession: every part wired as in production) over a fake stream,
 * closed after each test. `open` returns the session, the recorded requests, every event of
 * the session's one stream (turn and job events, with their sequence numbers) and a `submit`
 * that runs a turn to its end.
 */
export function useTestSessions() {
  const opened: OpenedSession[] = [];
  afterEach(async () => {
    await Promise.all(opened.splice(0).map((o) => o.close()));
  });

  return async function open(
    respond: (request: ModelRequest, index: number) => FakeReply | Promise<FakeReply>,
    options: { flags?: SessionSetup['flags']; dirs?: TestDirs; sandboxProbe?: SessionSetup['sandboxProbe'] } = {},
  ) {
    const dirs = options.dirs ?? testDirs();
    const stream = fakeStream(respond);
    const probe = options.sandboxProbe ? { sandboxProbe: options.sandboxProbe } : {};
    const session = await openSession({ ...dirs, headless: true, flags: options.flags ?? {}, stream, ...probe });
    opened.push(session);
    const events: SessionEvent[] = [];
    const seqs: number[] = [];
    session.events.subscribe(({ seq, event }) => {
      seqs.push(seq);
      events.push(event);
    });
    const submit = (prompt: string | undefined) => session.session.submit(prompt, new AbortController().signal);
    return { session, stream, events, seqs, submit, cwd: dirs.cwd };
  };
}

/** True for a request made by a sub-agent (its system prompt carries the role contract). */
export const isChildRequest = (request: ModelRequest) => request.system.includes('You are a sub-agent');
