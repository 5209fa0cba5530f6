import { PassThrough } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { SdkMcpHost } from '../../src/cli/sdk-mcp.js';
import { StreamChannel } from '../../src/cli/stream-control.js';
import { McpManager } from '../../src/core/mcp/manager.js';
import type { AnyTool, ToolContext } from '../../src/core/tools/define.js';
import { executeTool } from '../../src/core/tools/registry.js';
import { FakeClock, settle } from '../support/fake-clock.js';
import { REPO } from '../support/run-cli.js';
import { until } from '../support/until.js';

/**
 * outrider's MCP client reaching an in-process server of the Agent SDK over the control
 * channel (`mcp_message`), with the test as the SDK host: one that answers well, and ones that
 * answer garbage, refuse, or never answer.
 */
type Message = { jsonrpc: '2.0'; id?: string | number; method?: string; params?: any };
/** The host's answer to one mcp_message: a success payload, an error, or none at all. */
type Answer = { response: unknown } | { error: string } | 'never';

const ADD = { name: 'add', inputSchema: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } } } };

/** A host that does the handshake and lists `add`; `call` answers tools/call. */
function friendly(call: (message: Message) => Answer, tools: unknown[] = [ADD]): (message: Message) => Answer {
  return (message) => {
    const reply = (result: unknown) => ({ response: { mcp_response: { jsonrpc: '2.0', id: message.id, result } } });
    switch (message.method) {
      case 'initialize':
        return reply({
          protocolVersion: message.params.protocolVersion,
          capabilities: { tools: { listChanged: true } },
          serverInfo: { name: 'calc', version: '1.0.0' },
        });
      case 'tools/list':
        return reply({ tools });
      case 'tools/call':
        return call(message);
      default:
        // The SDK's acknowledgement of a notification: a reply to no request of outrider's.
        return { response: { mcp_response: { jsonrpc: '2.0', result: {}, id: 0 } } };
    }
  };
}

const managers: McpManager[] = [];
afterEach(async () => {
  await Promise.all(managers.splice(0).map((m) => m.close()));
});

function session(behave: (message: Message) => Answer) {
  const input = new PassThrough();
  const written: any[] = [];
  const send = (value: unknown) => input.write(`${JSON.stringify(value)}\n`);
  const channel = new StreamChannel(
    input,
    (line) => {
      const value = JSON.parse(JSON.stringify(line));
      written.push(value);
      if (value.type !== 'control_request' || value.request.subtype !== 'mcp_message') return;
      const answer = behave(value.request.message);
      if (answer === 'never') return;
      const id = value.request_id;
      setImmediate(() =>
        send({
          type: 'control_response',
          response:
            'error' in answer
              ? { subtype: 'error', request_id: id, error: answer.error }
              : { subtype: 'success', request_id: id, response: answer.response },
        }),
      );
    },
    { signal: new AbortController().signal },
  );
  const clock = new FakeClock();
  const host = new SdkMcpHost(channel, ['calc']);
  const m = new McpManager({
    servers: host.servers().map((server) => ({ ...server, source: 'sdk' })),
    env: {},
    cwd: REPO,
    publish: () => {},
    timers: clock,
    startupTimeoutMs: 1000,
    toolTimeoutMs: 5000,
  });
  managers.push(m);
  const sent = (method: string) => written.filter((w) => w.request?.message?.method === method);
  return { m, written, send, clock, sent };
}

const context = (): ToolContext => ({ signal: new AbortController().signal, workspace: { root: REPO, extraDirs: [] } });
const add = (m: McpManager): AnyTool => m.tools().find((t) => t.name === 'mcp__calc__add')!;

describe('in-process MCP servers of the Agent SDK (mcp_message)', () => {
  it('does the handshake over mcp_message and calls a tool: the host’s reply is the result', async () => {
    const { m, written } = session(
      friendly((message) => ({
        response: {
          mcp_response: {
            jsonrpc: '2.0',
            id: message.id,
            result: { content: [{ type: 'text', text: String(message.params.arguments.a + message.params.arguments.b) }] },
          },
        },
      })),
    );
    await m.start();
    expect(m.statuses()[0]).toMatchObject({ name: 'calc', source: 'sdk', transport: 'sdk', state: 'ready' });
    expect(await executeTool(add(m), { a: 2, b: 3 }, context())).toEqual({ content: '5' });
    expect(written[0]).toMatchObject({
      type: 'control_request',
      request: { subtype: 'mcp_message', server_name: 'calc', message: { method: 'initialize' } },
    });
  });

  it('a server whose host answers initialize with garbage, or refuses it, fails with what came; nothing hangs', async () => {
    const garbage = session((message) =>
      message.method === 'initialize' ? { response: { mcp_response: 'nonsense' } } : 'never',
    );
    await garbage.m.start();
    expect(garbage.m.statuses()[0]).toMatchObject({ state: 'failed' });
    expect(garbage.m.statuses()[0]!.error).toContain('answered mcp_message without a JSON-RPC reply to request 0');

    const refused = session(() => ({ error: 'calc exploded' }));
    await refused.m.start();
    expect(refused.m.statuses()[0]!.error).toContain('did not answer: calc exploded');
  });

  it('a host that never answers: the start fails at the startup timeout and the question is withdrawn', async () => {
    const { m, clock, written, sent } = session(() => 'never');
    const started = m.start();
    await until(() => sent('initialize').length === 1, { what: 'initialize to be sent' });
    await settle();
    clock.advance(1000);
    await started;
    expect(m.statuses()[0]).toMatchObject({ state: 'failed', error: 'did not start within 1s (setting mcp.startupTimeoutMs)' });
    const asked = sent('initialize')[0].request_id;
    await until(() => written.some((w) => w.type === 'control_cancel_request' && w.request_id === asked), {
      what: 'the initialize request to be cancelled',
    });
  });

  it('a tool call answered with garbage, refused, or never answered is a tool error, and the server goes on', async () => {
    let next: (message: Message) => Answer = () => 'never';
    const { m, clock, written, sent } = session(friendly((message) => next(message)));
    await m.start();
    const call = () => executeTool(add(m), { a: 1, b: 1 }, context());

    next = () => ({ response: { mcp_response: { jsonrpc: '2.0', id: 'not-that-one', result: {} } } });
    expect(await call()).toEqual({
      content: expect.stringMatching(/answered mcp_message without a JSON-RPC reply to request \d+/),
      isError: true,
    });
    next = (message) => ({ response: { mcp_response: { jsonrpc: '2.0', id: message.id, result: 'not an object' } } });
    expect((await call()).content).toMatch(/without a JSON-RPC reply/);
    next = () => ({ response: null });
    expect((await call()).content).toMatch(/without a JSON-RPC reply/);
    next = () => ({ error: 'the handler threw' });
    expect((await call()).content).toContain('did not answer: the handler threw');

    next = () => 'never';
    const hanging = call();
    await until(() => sent('tools/call').length === 5, { what: 'the fifth call to be sent' });
    await settle();
    clock.advance(5000);
    expect(await hanging).toEqual({
      content: 'mcp__calc__add timed out after 5s and was cancelled (setting mcp.toolTimeoutMs)',
      isError: true,
    });
    const asked = sent('tools/call')[4].request_id;
    await until(() => written.some((w) => w.type === 'control_cancel_request' && w.request_id === asked), {
      what: 'the call to be withdrawn from the host',
    });

    next = (message) => ({
      response: { mcp_response: { jsonrpc: '2.0', id: message.id, result: { content: [{ type: 'text', text: 'ok' }] } } },
    });
    expect(await call()).toEqual({ content: 'ok' });
    expect(m.statuses()[0]!.state).toBe('ready');
  });

  it("reads the host's own messages: a changed tool list is listed again; a bad one is refused, not a crash", async () => {
    let tools: unknown[] = [ADD];
    const { m, send, written } = session((message) => friendly(() => 'never', tools)(message));
    await m.start();
    const answerTo = (id: string) => written.find((w) => w.type === 'control_response' && w.response.request_id === id);

    send({ type: 'control_request', request_id: 'h1', request: { subtype: 'mcp_message', server_name: 'nope', message: {} } });
    await until(() => answerTo('h1'), { what: 'the unknown server to be refused' });
    expect(answerTo('h1').response).toMatchObject({ subtype: 'error', error: expect.stringContaining('"nope"') });

    send({ type: 'control_request', request_id: 'h2', request: { subtype: 'mcp_message', server_name: 'calc', message: 7 } });
    await until(() => answerTo('h2'), { what: 'the bad message to be refused' });
    expect(answerTo('h2').response).toMatchObject({ subtype: 'error', error: expect.stringContaining('JSON-RPC 2.0') });

    tools = [ADD, { ...ADD, name: 'sub' }];
    send({
      type: 'control_request',
      request_id: 'h3',
      request: {
        subtype: 'mcp_message',
        server_name: 'calc',
        message: { jsonrpc: '2.0', method: 'notifications/tools/list_changed' },
      },
    });
    await until(() => m.tools().length === 2, { what: 'the new tool list' });
    expect(answerTo('h3').response).toEqual({ subtype: 'success', request_id: 'h3', response: {} });
    expect(m.statuses()[0]!.tools).toEqual(['mcp__calc__add', 'mcp__calc__sub']);
  });
});
