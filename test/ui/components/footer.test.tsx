import { describe, expect, it } from 'vitest';
import { Footer } from '../../../src/ui/components/footer.js';
import { frame, job, mount } from '../harness.js';

const jobs = [
  job({ number: 1, startedAt: 0 }),
  job({ number: 2, startedAt: 30_000 }),
  job({ number: 3, state: 'queued', startedAt: undefined }),
  job({ number: 4, state: 'done', endedAt: 10_000 }),
  job({ number: 5, state: 'done', endedAt: 10_000 }),
  job({ number: 6, state: 'done', endedAt: 10_000 }),
];

describe('Footer', () => {
  it('shows the model, the context and the status segment, then the key hint', async () => {
    const rendered = await mount(
      <Footer model="claude-sonnet-4-5" contextTokens={12_345} jobs={jobs} now={80_000} width={120} />,
    );
    const [status, hint] = frame(rendered).split('\n');
    expect(status).toBe('claude-sonnet-4-5 · ctx 12k · subagents: 2 running (oldest 1m20s), 1 queued, 3 done');
    expect(hint).toContain('Esc interrupt');
    expect(hint).toContain('Ctrl+K stop sub-agents');
    expect(hint).toContain('Ctrl+C twice quit');
  });

  it('uses the short form on narrow terminals', async () => {
    const rendered = await mount(<Footer model="gpt-4.1" contextTokens={900} jobs={jobs} now={80_000} width={60} />);
    const [status, hint] = frame(rendered).split('\n');
    expect(status).toBe('gpt-4.1 · ctx 900 · agents 2▶ 1… 3✓');
    expect(Array.from(hint!).length).toBeLessThanOrEqual(60);
  });

  it('leaves the segment out before any sub-agent starts, and shows a pending confirmation instead of the hint', async () => {
    const rendered = await mount(
      <Footer model="m" contextTokens={0} jobs={[]} now={0} width={100} message="press Ctrl+C again to quit" />,
    );
    expect(frame(rendered)).toBe('m · ctx 0\npress Ctrl+C again to quit');
  });

  it('shows how many MCP servers are up, after the other segments', async () => {
    const rendered = await mount(<Footer model="m" contextTokens={0} jobs={[]} now={0} width={100} mcp="mcp 2/3" />);
    expect(frame(rendered).split('\n')[0]).toBe('m · ctx 0 · mcp 2/3');
  });
});
