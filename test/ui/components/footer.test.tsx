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
  it('shows the mode, the model, the share of the context used, the cost and the sub-agents, then the key hint', async () => {
    const rendered = await mount(
      <Footer
        model="claude-x"
        mode="default"
        contextTokens={76_000}
        contextWindow={200_000}
        cost={0.1234}
        jobs={jobs}
        now={80_000}
        width={100}
      />,
    );
    const [status, hint] = frame(rendered).split('\n');
    expect(status).toBe('default · claude-x · ctx 38% · $0.12 · subagents: 2 running (oldest 1m20s), 1 queued, 3 done');
    expect(hint).toContain('Esc interrupt');
    expect(hint).toContain('Shift+Tab mode');
    expect(hint).toContain('Ctrl+K twice stop sub-agents');
    expect(hint).toContain('Ctrl+C twice quit');
  });

  it('says Esc goes back while a view (/agents) has the keys, at every width', async () => {
    for (const width of [100, 60, 40]) {
      const rendered = await mount(
        <Footer model="m" mode="default" contextTokens={0} jobs={jobs} now={0} width={width} inView />,
      );
      const hint = frame(rendered).split('\n')[1]!;
      expect(hint).toMatch(/^Esc back/);
      expect(hint).not.toContain('interrupt');
      expect(Array.from(hint).length).toBeLessThanOrEqual(width);
    }
  });

  it('uses the short form on narrow terminals: counts in words, not symbols', async () => {
    const rendered = await mount(<Footer model="gpt-4.1" mode="yolo" contextTokens={900} jobs={jobs} now={80_000} width={60} />);
    const [status, hint] = frame(rendered).split('\n');
    expect(status).toBe('yolo · ctx 900 · 2 running · 1 queued · 3 done');
    expect(Array.from(hint!).length).toBeLessThanOrEqual(60);
  });

  it('leaves the segment out before any sub-agent starts, and shows a pending confirmation instead of the hint', async () => {
    const rendered = await mount(
      <Footer
        model="m"
        mode="plan"
        contextTokens={0}
        contextWindow={1000}
        jobs={[]}
        now={0}
        width={100}
        message="press Ctrl+C again to quit"
      />,
    );
    expect(frame(rendered)).toBe('plan · m · ctx 0%\npress Ctrl+C again to quit');
  });

  it('shows how many MCP servers are up, after the other segments', async () => {
    const rendered = await mount(
      <Footer model="m" mode="default" contextTokens={0} jobs={[]} now={0} width={100} mcp="mcp 2/3" />,
    );
    expect(frame(rendered).split('\n')[0]).toBe('default · m · ctx 0 · mcp 2/3');
  });

  it('shows the effort after the model when the session has one', async () => {
    const rendered = await mount(
      <Footer model="claude-x" effort="high" mode="default" contextTokens={0} jobs={[]} now={0} width={100} />,
    );
    expect(frame(rendered).split('\n')[0]).toBe('default · claude-x · effort high · ctx 0');
  });
});
