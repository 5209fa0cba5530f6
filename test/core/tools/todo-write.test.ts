import { describe, expect, it } from 'vitest';
import type { ModelRequest } from '../../../src/core/providers/types.js';
import type { FakeReply } from '../../support/fake-stream.js';
import { isChildRequest, useTestSessions } from '../../support/test-session.js';

const open = useTestSessions();

const plan = [
  { content: 'Read the config loader', status: 'completed' },
  { content: 'Add the new key', status: 'in_progress' },
  { content: 'Run the tests', status: 'pending' },
];

describe('todo_write', () => {
  it('publishes the list as a todos event and gives the model the list back', async () => {
    const t = await open((_request, index) =>
      index === 0 ? { toolCalls: [{ name: 'todo_write', args: { todos: plan } }] } : { text: 'on it' },
    );
    await t.submit('add a key');
    const todos = t.events.filter((e) => e.type === 'todos');
    expect(todos).toEqual([{ type: 'todos', todos: plan }]);
    const end = t.events.find((e) => e.type === 'tool_end');
    expect(end).toMatchObject({
      name: 'todo_write',
      isError: false,
      content: 'Todo list updated (1/3 done):\n[x] Read the config loader\n[~] Add the new key\n[ ] Run the tests',
    });
    // The todos event falls between the call's start and its end.
    const types = t.events.map((e) => e.type);
    expect(types.indexOf('tool_start')).toBeLessThan(types.indexOf('todos'));
    expect(types.indexOf('todos')).toBeLessThan(types.indexOf('tool_end'));
  });

  it('runs in plan mode: it changes nothing outside the session', async () => {
    const t = await open(
      (_r, index) => (index === 0 ? { toolCalls: [{ name: 'todo_write', args: { todos: plan } }] } : { text: 'ok' }),
      {
        flags: { permissionMode: 'plan' },
      },
    );
    await t.submit('plan it');
    expect(t.events.find((e) => e.type === 'tool_end')).toMatchObject({ isError: false });
  });

  it('refuses a bad list with a reason and publishes nothing', async () => {
    const bad = [
      { content: ' ', status: 'pending' },
      { content: 'x', status: 'doing' },
    ];
    const t = await open((_r, index) =>
      index === 0 ? { toolCalls: [{ name: 'todo_write', args: { todos: bad } }] } : { text: 'ok' },
    );
    await t.submit('go');
    const end = t.events.find((e) => e.type === 'tool_end');
    expect(end).toMatchObject({ isError: true });
    expect((end as { content: string }).content).toContain('todos.0.content: content must say what the step is');
    expect(t.events.some((e) => e.type === 'todos')).toBe(false);
  });

  it('is in the history a fork replays, but not a tool a sub-agent can call', async () => {
    const t = await open((request: ModelRequest, index): FakeReply => {
      if (isChildRequest(request) || JSON.stringify(request.messages).includes('forked sub-agent'))
        return { text: 'fork saw the plan' };
      if (index === 0) return { toolCalls: [{ name: 'todo_write', args: { todos: plan } }] };
      if (index === 1) return { toolCalls: [{ name: 'agent_start', args: { task: 'check the plan', mode: 'fork' } }] };
      return { text: 'done' };
    });
    await t.submit('go');
    await t.session.waitForAgents(new AbortController().signal);
    const fork = t.stream.requests.find((r) => JSON.stringify(r.messages).includes('forked sub-agent'))!;
    expect(JSON.stringify(fork.messages)).toContain('Add the new key');
    const parentTools = t.stream.requests[0]!.tools.map((tool) => tool.name);
    expect(parentTools).toContain('todo_write');
    expect(t.session.agents.manager.list()[0]).toMatchObject({ state: 'done' });
  });
});
