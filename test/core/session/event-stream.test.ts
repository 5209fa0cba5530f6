import { describe, expect, it } from 'vitest';
import { EventStream, type SequencedEvent, type SessionEvent } from '../../../src/core/session/event-stream.js';
import { isChildRequest, useTestSessions } from '../../support/test-session.js';

const open = useTestSessions();

describe('the session event stream', () => {
  it('numbers every event in the order it happened, turn and job events alike', async () => {
    const { session, submit } = await open((request) => {
      if (isChildRequest(request)) return { text: 'child report' };
      if (request.messages.length === 1) return { toolCalls: [{ name: 'agent_start', args: { task: 'look' } }] };
      if (request.messages.length === 3) return { toolCalls: [{ name: 'agent_poll', args: { id: 'sub-1' } }] };
      return { text: 'done' };
    });
    const seen: SequencedEvent[] = [];
    session.events.subscribe((item) => seen.push(item));
    await submit('go');
    expect(seen.map((item) => item.seq)).toEqual(seen.map((_, i) => i + 1));
    expect(seen[0]!.event).toEqual({ type: 'submit', prompt: 'go' });
    const types = seen.map(({ event }) => (event.type === 'job_state' ? `job_state:${event.job.state}` : event.type));
    // The child's whole life sits between the parent's agent_start and the poll that returns its report.
    const started = types.indexOf('job_state:queued');
    const done = types.indexOf('job_state:done');
    const delivered = types.indexOf('job_delivered');
    const lastEnd = types.lastIndexOf('run_end');
    expect(started).toBeGreaterThan(types.indexOf('tool_start'));
    expect(types.slice(started, done)).toContain('job_event');
    expect(done).toBeLessThan(delivered);
    expect(delivered).toBeLessThan(lastEnd);
    expect(lastEnd).toBe(types.length - 1);
  });

  it('a reader that throws does not break the session or the other readers', () => {
    const stream = new EventStream();
    const got: number[] = [];
    stream.subscribe(() => {
      throw new Error('render failed');
    });
    const stop = stream.subscribe((item) => got.push(item.seq));
    stream.publish({ type: 'submit', prompt: 'a' });
    stop();
    stream.publish({ type: 'submit', prompt: 'b' });
    expect(got).toEqual([1]);
  });

  it('replays the latest state event of each key to a reader that subscribes later, with its own number', () => {
    const stream = new EventStream();
    const server = (state: 'starting' | 'ready'): SessionEvent => ({
      type: 'mcp_server',
      server: { name: 'a', source: 'settings', transport: 'stdio', state, tools: [] },
    });
    stream.publish(server('starting'), { state: 'mcp_server:a' });
    stream.publish({ type: 'submit', prompt: 'x' });
    stream.publish(server('ready'), { state: 'mcp_server:a' });
    const got: SequencedEvent[] = [];
    stream.subscribe((item) => got.push(item));
    stream.publish({ type: 'submit', prompt: 'y' });
    expect(got).toEqual([
      { seq: 3, event: server('ready') },
      { seq: 4, event: { type: 'submit', prompt: 'y' } },
    ]);
  });
});
