/**
 * A resumed session starts on the model `/model` last switched it to (and its effort), unless
 * this run's --model / --effort name one; a recorded model the provider cannot serve is said and
 * left; the earlier parent usage keeps the price of the model it was spent on. The real
 * Anthropic and OpenAI clients against the mock provider.
 */
import { readFileSync } from 'node:fs';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { openSession } from '../../../src/core/session/open-session.js';
import type { OpenedSession, SessionSetup } from '../../../src/core/session/opened-session.js';
import { lastRecordedModel } from '../../../src/core/session/resumed-model.js';
import { TranscriptWriter, readTranscript } from '../../../src/core/session/transcript.js';
import { type MockProvider, startMockProvider } from '../../support/mock-provider.js';
import { type TestDirs, testDirs } from '../../support/test-session.js';

let mock: MockProvider;
const sessions: OpenedSession[] = [];
beforeAll(async () => {
  mock = await startMockProvider();
});
afterEach(async () => {
  await Promise.all(sessions.splice(0).map((s) => s.close()));
  mock.reset();
});
afterAll(() => mock.close());

// Well under the windows, so no compaction call joins the script.
const usage = { input: 100_000, output: 0, cacheRead: 0, cacheWrite: 0 };
const signal = () => new AbortController().signal;

async function open(dirs: TestDirs, flags: SessionSetup['flags'] = {}, env: Record<string, string> = {}) {
  const session = await openSession({
    ...dirs,
    env: { ...dirs.env, ANTHROPIC_BASE_URL: mock.anthropicBaseURL, ...env },
    headless: true,
    flags,
  });
  sessions.push(session);
  return session;
}

/** A session that ran a turn on sonnet-5, switched to opus (effort high), ran one there, and closed. */
async function switchedAndClosed(): Promise<TestDirs> {
  const dirs = testDirs();
  const first = await open(dirs);
  mock.script({ text: 'one', usage }, { text: 'two', usage });
  await first.submitPrompt('hello', signal());
  expect(first.switchModel('opus', 'high')).toMatchObject({ ok: true });
  await first.submitPrompt('again', signal());
  await first.close();
  sessions.splice(sessions.indexOf(first), 1);
  mock.reset();
  return dirs;
}

describe('resuming a session switched with /model', () => {
  it('starts on the switched model and effort when no flag names one', async () => {
    const dirs = await switchedAndClosed();
    const resumed = await open(dirs, { continue: true });
    expect([resumed.model, resumed.effort]).toEqual(['claude-opus-5-5', 'high']);
    mock.script({ text: 'three' });
    await resumed.submitPrompt('third', signal());
    const body = mock.requests[0]!.body;
    expect(body.model).toBe('claude-opus-5-5');
    expect(body.output_config).toEqual({ effort: 'high' });
    // `/model default` still means the model this run was configured with.
    expect(resumed.switchModel('default')).toMatchObject({ ok: true, target: { model: 'claude-sonnet-5' } });
  });

  it("takes this run's --model over the transcript, and the recorded effort over settings", async () => {
    const dirs = await switchedAndClosed();
    const resumed = await open(dirs, { continue: true, model: 'claude-haiku-5-5' });
    mock.script({ text: 'three' });
    await resumed.submitPrompt('third', signal());
    expect(mock.requests[0]!.body.model).toBe('claude-haiku-5-5');
    expect(mock.requests[0]!.body.output_config).toEqual({ effort: 'high' });
  });

  it("takes this run's --effort over the transcript, on the recorded model", async () => {
    const dirs = await switchedAndClosed();
    const resumed = await open(dirs, { continue: true, effort: 'low' });
    mock.script({ text: 'three' });
    await resumed.submitPrompt('third', signal());
    expect(mock.requests[0]!.body.model).toBe('claude-opus-5-5');
    expect(mock.requests[0]!.body.output_config).toEqual({ effort: 'low' });
  });

  it('starts on the configured model, saying why, when the provider cannot serve the recorded one', async () => {
    const dirs = await switchedAndClosed();
    const openai = { OPENAI_API_KEY: 'sk-test-openai-1234', OPENAI_BASE_URL: mock.openaiBaseURL };
    const resumed = await open(dirs, { continue: true, provider: 'openai' }, openai);
    expect(resumed.model).toBe('gpt-5.5');
    const warning = resumed.warnings.find((w) => w.includes('claude-opus-5-5'));
    expect(warning).toMatch(/last on claude-opus-5-5 .*not served by the openai provider.*it starts on gpt-5\.5/);
    mock.script({ text: 'three' });
    await resumed.submitPrompt('third', signal());
    expect(mock.requests[0]!.body.model).toBe('gpt-5.5');
  });

  it('prices the earlier parent usage at the model it was spent on', async () => {
    const dirs = await switchedAndClosed();
    const resumed = await open(dirs, { continue: true });
    const before = resumed.usageReport().rows.filter((row) => row.name === 'parent');
    // 100k input tokens each: sonnet-5 at $2 a million, opus-5.5 at $4.
    expect(before.map((row) => [row.model, row.usage.input])).toEqual([
      ['claude-sonnet-5', 100_000],
      ['claude-opus-5-5', 100_000],
    ]);
    expect(before[0]!.cost).toBeCloseTo(0.2, 10);
    expect(before[1]!.cost).toBeCloseTo(0.4, 10);
    mock.script({ text: 'three', usage });
    await resumed.submitPrompt('third', signal());
    const after = resumed.usageReport().rows.filter((row) => row.name === 'parent');
    expect(after.map((row) => [row.model, row.usage.input])).toEqual([
      ['claude-sonnet-5', 100_000],
      ['claude-opus-5-5', 200_000],
    ]);
    expect(resumed.usageReport().total.cost).toBeCloseTo(1, 10);
  });

  it('resumed twice, still prices each model apart (the split is written again at each turn end)', async () => {
    const dirs = await switchedAndClosed();
    const second = await open(dirs, { continue: true });
    mock.script({ text: 'three', usage });
    await second.submitPrompt('third', signal());
    await second.close();
    sessions.splice(sessions.indexOf(second), 1);
    const third = await open(dirs, { continue: true });
    expect(
      third
        .usageReport()
        .rows.filter((row) => row.name === 'parent')
        .map((row) => [row.model, row.usage.input]),
    ).toEqual([
      ['claude-sonnet-5', 100_000],
      ['claude-opus-5-5', 200_000],
    ]);
  });
});

describe('the recorded model as read back', () => {
  it('is the last well-formed model event, kept through a /rewind of the messages around it', () => {
    const file = `${testDirs().cwd}/t.jsonl`;
    const writer = new TranscriptWriter(file, { sessionId: 's', cwd: '/', provider: 'anthropic', model: 'claude-sonnet-5' });
    writer.append({ role: 'user', content: [{ type: 'text', text: 'a' }] });
    writer.event('model', { model: 'claude-opus-4', effort: 'max' });
    writer.append({ role: 'assistant', content: [{ type: 'text', text: 'b' }] });
    writer.event('model', { model: 'claude-opus-5-5', effort: 'high' });
    writer.event('model', { model: 42 });
    writer.event('model', { model: 'claude-haiku-5-5', effort: 'extreme' });
    writer.append({ role: 'user', content: [{ type: 'text', text: 'c' }] });
    writer.rewind(3);
    writer.close();
    expect(readFileSync(file, 'utf8')).toContain('"rewind"');
    // /rewind took the messages back, not the switch: the model stays as the live session had it.
    expect(lastRecordedModel(readTranscript(file).events)).toEqual({ model: 'claude-haiku-5-5' });
  });
});
