import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { StreamChannel } from '../../src/cli/stream-control.js';
import { until } from '../support/until.js';

function channel(options: { maxQueued?: number } = {}) {
  const input = new PassThrough();
  const written: any[] = [];
  const controller = new AbortController();
  const ch = new StreamChannel(input, (line) => written.push(JSON.parse(JSON.stringify(line))), {
    signal: controller.signal,
    ...options,
  });
  const send = (value: unknown) => input.write(`${typeof value === 'string' ? value : JSON.stringify(value)}\n`);
  return { ch, input, written, send, controller };
}

const user = (text: string) => ({ type: 'user', message: { role: 'user', content: text } });

describe('StreamChannel: stream-json input with the control protocol', () => {
  it('answers a control request at once, while the user messages before it still wait for their turn', async () => {
    const { ch, send, written } = channel();
    let interrupted = 0;
    ch.on('interrupt', () => {
      interrupted += 1;
      return {};
    });
    send(user('first'));
    send({ type: 'control_request', request_id: 'r1', request: { subtype: 'interrupt' } });
    // Nobody has taken "first" yet (a turn is running): the interrupt is answered anyway.
    await until(() => written.length === 1, { what: 'the interrupt to be answered' });
    expect(interrupted).toBe(1);
    expect(written[0]).toEqual({ type: 'control_response', response: { subtype: 'success', request_id: 'r1', response: {} } });
    expect(await ch.next()).toEqual({ kind: 'user', text: 'first', images: [] });
  });

  it('hands out initialize in order; an unknown subtype gets an error answer, not a crash', async () => {
    const { ch, send, written, input } = channel();
    send({ type: 'control_request', request_id: 'i', request: { subtype: 'initialize', appendSystemPrompt: 'x' } });
    send({ type: 'control_request', request_id: 'u', request: { subtype: 'rewind_files' } });
    send({ type: 'keep_alive' });
    send(user('go'));
    input.end();
    expect(await ch.next()).toEqual({
      kind: 'initialize',
      requestId: 'i',
      request: { subtype: 'initialize', appendSystemPrompt: 'x' },
    });
    expect(await ch.next()).toEqual({ kind: 'user', text: 'go', images: [] });
    expect(await ch.next()).toBeUndefined();
    expect(written).toEqual([
      {
        type: 'control_response',
        response: {
          subtype: 'error',
          request_id: 'u',
          error: 'outrider does not handle control requests of subtype "rewind_files"',
        },
      },
    ]);
  });

  it('routes the answer to a request outrider asked, and ignores answers nobody waits for', async () => {
    const { ch, send, written } = channel();
    const asked = ch.request({ subtype: 'can_use_tool', tool_name: 'Bash' }, new AbortController().signal);
    await until(() => written.length === 1, { what: 'the request to be written' });
    const id = written[0].request_id as string;
    send({
      type: 'control_response',
      response: { subtype: 'success', request_id: 'someone-else', response: { behavior: 'deny' } },
    });
    send({ type: 'control_response', response: { subtype: 'success', request_id: id, response: { behavior: 'allow' } } });
    expect(await asked).toEqual({ behavior: 'allow' });
    const refused = ch.request({ subtype: 'can_use_tool' }, new AbortController().signal);
    await until(() => written.length === 2, { what: 'the second request' });
    send({ type: 'control_response', response: { subtype: 'error', request_id: written[1].request_id, error: 'no' } });
    await expect(refused).rejects.toThrow('no');
  });

  it('a question still open when stdin closes is refused, not left hanging; an aborted one is cancelled', async () => {
    const { ch, input, written } = channel();
    const abort = new AbortController();
    const cancelled = ch.request({ subtype: 'can_use_tool' }, abort.signal);
    abort.abort();
    await expect(cancelled).rejects.toThrow('aborted');
    expect(written[1]).toEqual({ type: 'control_cancel_request', request_id: written[0].request_id });
    const open = ch.request({ subtype: 'can_use_tool' }, new AbortController().signal);
    input.end();
    await expect(open).rejects.toThrow('stdin closed before the answer came');
  });

  it('stops reading while the queue is full, and reads on as messages are taken', async () => {
    const flood = channel({ maxQueued: 2 });
    let answered = 0;
    flood.ch.on('interrupt', () => {
      answered += 1;
      return {};
    });
    for (const text of ['a', 'b', 'c']) flood.send(user(text));
    flood.send({ type: 'control_request', request_id: 'late', request: { subtype: 'interrupt' } });
    // Two wait; the rest of stdin is not read meanwhile (the interrupt behind them included).
    await until(() => flood.written.length === 0 && answered === 0, { what: 'nothing answered while the queue is full' });
    expect(await flood.ch.next()).toMatchObject({ text: 'a' });
    expect(await flood.ch.next()).toMatchObject({ text: 'b' });
    expect(await flood.ch.next()).toMatchObject({ text: 'c' });
    await until(() => answered === 1, { what: 'the interrupt behind them to be read' });
  });

  it('refuses a malformed control request and a line that is no message', async () => {
    const bad = channel();
    bad.send({ type: 'control_request', request: { subtype: 'interrupt' } });
    await expect(bad.ch.next()).rejects.toThrow('stdin line 1: a control_request needs a request_id');

    const other = channel();
    other.send({ type: 'assistant', message: {} });
    await expect(other.ch.next()).rejects.toThrow('only user messages are read, got "assistant"');
    const notJson = channel();
    notJson.send('{oops');
    await expect(notJson.ch.next()).rejects.toThrow('stdin line 1 is not JSON');
  });
});
