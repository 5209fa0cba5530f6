/** Stored sessions of a chosen length, for the resume and growth figures. */
import path from 'node:path';
import type { Message } from '../../src/core/providers/types.js';
import { createSessionFolder, newSessionId } from '../../src/core/session/store.js';
import { TranscriptWriter } from '../../src/core/session/transcript.js';

/** A system prompt of a realistic size (what a session stores and resumes with). */
export const STORED_SYSTEM = `You are outrider, a coding agent.\n${'Follow the house rules of the repository. '.repeat(100)}`;

/**
 * `count` messages (an even number) as a read-one-file-per-step session leaves them: the
 * user's prompt, tool call / tool result pairs whose results are `resultChars` long, and the
 * model's answer.
 */
export function makeHistory(count: number, resultChars: number): Message[] {
  if (count < 2 || count % 2 !== 0) throw new Error(`makeHistory: ${count} messages; give an even number of at least 2`);
  const history: Message[] = [
    { role: 'user', content: [{ type: 'text', text: 'Read the files one by one and summarise them.' }] },
  ];
  const line = 'export const value = 1; // a line of a file the model asked to read\n';
  const result = line.repeat(Math.ceil(resultChars / line.length)).slice(0, resultChars);
  for (let step = 0; history.length < count - 1; step += 1) {
    const id = `toolu_bench_${step}`;
    history.push({
      role: 'assistant',
      content: [{ type: 'tool_use', id, name: 'read_file', input: { path: `src/file${step}.ts` } }],
    });
    history.push({ role: 'user', content: [{ type: 'tool_result', toolUseId: id, content: result }] });
  }
  history.push({ role: 'assistant', content: [{ type: 'text', text: 'Done: every file read.' }] });
  return history;
}

/** Writes a session of `history` into `home`'s session store, as outrider would have; returns its id and transcript. */
export function storeSession(
  home: string,
  cwd: string,
  history: Message[],
  provider = 'anthropic',
): { id: string; transcript: string } {
  const id = newSessionId();
  const paths = createSessionFolder(path.join(home, 'sessions'), id);
  const writer = new TranscriptWriter(paths.transcript, { sessionId: id, cwd, provider, model: 'claude-sonnet-5' }, { env: {} });
  writer.event('system_prompt', { system: STORED_SYSTEM });
  for (const message of history) writer.append(message);
  return { id, transcript: paths.transcript };
}
