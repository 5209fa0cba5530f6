import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { SessionNotification, SessionUpdate } from '@agentclientprotocol/sdk/unstable';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type AcpEditor, messageText, startAcp } from '../support/acp-client.js';
import { barrier } from '../support/barrier.js';
import { useMockProject } from '../support/e2e-project.js';
import type { RecordedRequest, Reply } from '../support/mock-provider.js';
import { until } from '../support/until.js';

const t = useMockProject();
const editors: AcpEditor[] = [];
beforeEach(() => {
  mkdirSync(path.join(t.project, 'src'), { recursive: true });
  for (const area of ['auth', 'billing', 'search']) {
    writeFileSync(
      path.join(t.project, 'src', `${area}.ts`),
      `export function ${area}() { throw new Error('${area} failed'); }\n`,
    );
  }
});
afterEach(async () => {
  for (const editor of editors.splice(0)) await editor.close();
});

const isChild = (r: RecordedRequest) => JSON.stringify(r.body.system).includes('You are a sub-agent');
const childArea = (r: RecordedRequest, areas: string[]) =>
  areas.find((a) => JSON.stringify(r.body.messages[0].content).includes(`src/${a}.ts`))!;

/**
 * A parent that starts one child per area in one response, then answers from the notices by
 * polling. A child reads its file and reports, unless `hang` names its area: that one's first
 * request never answers, so only a stop ends it.
 */
function scriptedRun(areas: string[], options: { gate?: { arrive(): Promise<void> }; hang?: string } = {}) {
  t.mock.respond(async (request): Promise<Reply> => {
    if (isChild(request)) {
      const area = childArea(request, areas);
      if (area === options.hang) return { fault: { kind: 'hang' } };
      if (request.body.messages.length === 1) {
        await options.gate?.arrive();
        return { toolCalls: [{ name: 'read_file', args: { path: `src/${area}.ts` } }] };
      }
      return { text: `${area}: throws Error('${area} failed')` };
    }
    const last = JSON.stringify(request.body.messages.at(-1));
    if (request.body.messages.length === 1) {
      return { toolCalls: areas.map((a) => ({ name: 'agent_start', args: { task: `How does src/${a}.ts handle errors?` } })) };
    }
    if (last.includes('completed. Call agent_poll')) {
      const ids = [...new Set([...last.matchAll(/sub-\d+/g)].map((m) => m[0]))];
      return { toolCalls: ids.map((id) => ({ name: 'agent_poll', args: { id } })) };
    }
    if (last.includes('tool_result') && last.includes('throws')) return { text: 'Compared the reports.' };
    return { text: 'Started the sub-agents.' };
  });
}

async function subagentEditor(): Promise<{ acp: AcpEditor; sessionId: string }> {
  const acp = await startAcp({ cwd: t.project, env: t.env, capabilities: { subagents: {} } });
  editors.push(acp);
  const { sessionId } = await acp.agent.request('session/new', { cwd: t.project, mcpServers: [] });
  return { acp, sessionId };
}

type Subagent = Extract<SessionUpdate, { sessionUpdate: 'subagent_update' }>;
const subagentUpdates = (notes: SessionNotification[], on: string): Subagent[] =>
  notes.filter((n) => n.sessionId === on && n.update.sessionUpdate === 'subagent_update').map((n) => n.update as Subagent);

describe('outrider acp: sub-agent jobs as child sessions', () => {
  it('a fan-out of three jobs: each announced as a child session, its work streamed there, its end reported', async () => {
    const gate = barrier(3, { what: 'first child requests' });
    scriptedRun(['auth', 'billing', 'search'], { gate });
    const { acp, sessionId } = await subagentEditor();
    const response = await acp.agent.request('session/prompt', {
      sessionId,
      prompt: [{ type: 'text', text: 'Compare how auth, billing and search handle errors' }],
    });
    gate.assertOpened();
    expect(response.stopReason).toBe('end_turn');
    expect(messageText(acp.updates(sessionId))).toContain('Compared the reports.');

    const children = ['sub-1', 'sub-2', 'sub-3'].map((id) => `${sessionId}/${id}`);
    const onParent = subagentUpdates(acp.notifications, sessionId);
    const announcements = onParent.filter((u) => u.title !== undefined);
    expect(announcements.map((u) => [u.sessionId, u.title, u.capabilities])).toEqual(
      children.map((child, i) => [child, `sub-${i + 1} · explore`, { cancel: {} }]),
    );
    expect(announcements[0]!.description).toBe('How does src/auth.ts handle errors?');
    for (const [i, child] of children.entries()) {
      // Announced before any of the child's own traffic, as the protocol requires.
      const announcedAt = acp.notifications.findIndex(
        (n) => n.update.sessionUpdate === 'subagent_update' && n.update.sessionId === child,
      );
      const firstOwn = acp.notifications.findIndex((n) => n.sessionId === child);
      expect(announcedAt).toBeLessThan(firstOwn);
      const states = onParent.filter((u) => u.sessionId === child && u.state).map((u) => u.state);
      expect(states).toEqual([
        { state: 'running' },
        expect.objectContaining({
          state: 'idle',
          stopReason: 'end_turn',
          usage: expect.objectContaining({ totalTokens: expect.any(Number) }),
        }),
      ]);
      const own = acp.updates(child);
      const area = ['auth', 'billing', 'search'][i]!;
      expect(own[0]).toEqual({
        sessionUpdate: 'user_message_chunk',
        content: { type: 'text', text: `How does src/${area}.ts handle errors?` },
      });
      expect(own.find((u) => u.sessionUpdate === 'tool_call')).toMatchObject({ kind: 'read', title: `Read src/${area}.ts` });
      expect(own.some((u) => u.sessionUpdate === 'tool_call_update' && u.status === 'completed')).toBe(true);
      expect(messageText(own)).toBe(`${area}: throws Error('${area} failed')`);
    }
    // The parent's own stream holds no child's calls: each is on its child session.
    expect(acp.updates(sessionId).filter((u) => u.sessionUpdate === 'tool_call' && u.title.startsWith('Read'))).toEqual([]);
  });

  it('cancelling a child session stops that job; the others finish and the prompt ends', async () => {
    scriptedRun(['auth', 'billing'], { hang: 'auth' });
    const { acp, sessionId } = await subagentEditor();
    const prompt = acp.agent.request('session/prompt', {
      sessionId,
      prompt: [{ type: 'text', text: 'Compare auth and billing' }],
    });
    const hanging = await until(() => t.mock.requests.find((r) => isChild(r) && childArea(r, ['auth', 'billing']) === 'auth'), {
      what: "auth's child request",
    });
    const child = `${sessionId}/sub-1`;
    await until(
      () => subagentUpdates(acp.notifications, sessionId).some((u) => u.sessionId === child && u.state?.state === 'running'),
      {
        what: 'sub-1 to run',
      },
    );
    expect(hanging.answeredAt).toBeUndefined();
    await acp.agent.notify('session/cancel', { sessionId: child });

    // The prompt waited for every job: it ends only because sub-1 was stopped.
    expect((await prompt).stopReason).toBe('end_turn');
    // Its model request was dropped: the job's run really stopped.
    await until(() => hanging.answeredAt !== undefined, { what: "sub-1's request to be closed" });
    const states = subagentUpdates(acp.notifications, sessionId)
      .filter((u) => u.state)
      .map((u) => [u.sessionId.slice(sessionId.length + 1), u.state!.state, (u.state as { stopReason?: string }).stopReason]);
    expect(states).toEqual(
      expect.arrayContaining([
        ['sub-1', 'idle', 'cancelled'],
        ['sub-2', 'idle', 'end_turn'],
      ]),
    );
    // A stopped job is never announced to the model; the other's report is.
    const parentRequests = t.mock.requests.filter((r) => !isChild(r)).map((r) => JSON.stringify(r.body.messages.at(-1)));
    expect(parentRequests.some((m) => m.includes('Sub-agents sub-1') || m.includes('Sub-agent sub-1 completed'))).toBe(false);
    expect(messageText(acp.updates(sessionId))).toContain('Compared the reports.');
    // A child session takes no prompt.
    await expect(
      acp.agent.request('session/prompt', { sessionId: child, prompt: [{ type: 'text', text: 'hi' }] }),
    ).rejects.toThrow(/child session: it takes no prompts/);
  });

  it('a loaded session shows its earlier jobs again as child sessions, each in its last state with its conversation', async () => {
    scriptedRun(['search']);
    const first = await subagentEditor();
    await first.acp.agent.request('session/prompt', {
      sessionId: first.sessionId,
      prompt: [{ type: 'text', text: 'check search' }],
    });
    editors.splice(editors.indexOf(first.acp), 1);
    await first.acp.close();

    const acp = await startAcp({ cwd: t.project, env: t.env, capabilities: { subagents: {} } });
    editors.push(acp);
    const { sessionId } = first;
    await acp.agent.request('session/load', { sessionId, cwd: t.project, mcpServers: [] });
    const child = `${sessionId}/sub-1`;
    expect(subagentUpdates(acp.notifications, sessionId)).toEqual([
      expect.objectContaining({ sessionId: child, title: 'sub-1 · explore', capabilities: { cancel: {} } }),
      expect.objectContaining({ sessionId: child, state: expect.objectContaining({ state: 'idle', stopReason: 'end_turn' }) }),
    ]);
    const replayed = acp.updates(child);
    expect(replayed[0]).toMatchObject({ sessionUpdate: 'user_message_chunk' });
    expect(JSON.stringify(replayed[0])).toContain('How does src/search.ts handle errors?');
    expect(replayed.find((u) => u.sessionUpdate === 'tool_call')).toMatchObject({
      title: 'Read src/search.ts',
      status: 'completed',
    });
    expect(messageText(replayed)).toBe("search: throws Error('search failed')");
  });

  it('an editor without the subagents capability sees no child sessions, only the parent tool calls', async () => {
    scriptedRun(['auth']);
    const acp = await startAcp({ cwd: t.project, env: t.env });
    editors.push(acp);
    const { sessionId } = await acp.agent.request('session/new', { cwd: t.project, mcpServers: [] });
    const response = await acp.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'check auth' }] });
    expect(response.stopReason).toBe('end_turn');
    expect(acp.notifications.every((n) => n.sessionId === sessionId && n.update.sessionUpdate !== 'subagent_update')).toBe(true);
    expect(
      acp
        .updates(sessionId)
        .filter((u) => u.sessionUpdate === 'tool_call')
        .map((u) => u.title),
    ).toEqual(expect.arrayContaining(['Start a sub-agent: How does src/auth.ts handle errors?']));
  });
});
