import chalk from 'chalk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ActivityRows } from '../../../src/ui/components/activity-rows.js';
import { JobStatusRows } from '../../../src/ui/components/job-status-rows.js';
import { UiStore, initialUiState } from '../../../src/ui/state/ui-store.js';
import type { UiSession } from '../../../src/ui/ui-session.js';
import { FakeClock } from '../../support/fake-clock.js';
import { agentInkColor } from '../../../src/ui/state/agent-colors.js';
import { frame, jobView, mount } from '../harness.js';

// eslint-disable-next-line no-control-regex -- the escape character is what is matched
const plain = (text: string) => text.replace(/\u001b\[[0-9;]*m/g, '');

describe("an agent file's color in the rows", () => {
  // Ink colours through chalk, which draws none without a terminal: these rows are drawn for one.
  let level: typeof chalk.level;
  beforeAll(() => {
    level = chalk.level;
    chalk.level = 1;
  });
  afterAll(() => {
    chalk.level = level;
  });

  it("draws a job's id in its agent's colour and the rest of the row as before", async () => {
    const colors = new Map([['reviewer', 'cyan' as const]]);
    const jobs = [jobView({ number: 1, definition: 'reviewer' }), jobView({ number: 2, definition: 'general' })];
    const colored = await mount(
      <ActivityRows jobs={jobs} now={5000} width={60} colorOf={(view) => agentInkColor(colors, view.job.definition)} />,
    );
    const plainRows = await mount(<ActivityRows jobs={jobs} now={5000} width={60} />);
    const [first, second] = frame(colored).split('\n');
    // Cyan (36) opens before the id and closes after it; the other job's row has no colour.
    expect(first!.startsWith('\u001b[36msub-1  \u001b[39m')).toBe(true);
    expect(second).not.toContain('\u001b[');
    expect(plain(frame(colored))).toBe(plain(frame(plainRows)));
  });

  it("takes the colours from the session's agent files in the TUI's rows", async () => {
    const session = {
      root: '/w',
      sessionId: 's',
      costOf: () => undefined,
      agentColors: new Map([['reviewer', 'purple' as const]]),
    } as Partial<UiSession> as UiSession;
    const view = jobView({ number: 1, definition: 'reviewer' });
    const store = new UiStore(initialUiState({ intro: [], storedJobs: [], wakeOnComplete: false }));
    const rendered = await mount(
      <JobStatusRows status={{ session, store, clock: new FakeClock(), say: () => {} }} jobs={[view]} now={5000} width={60} />,
    );
    expect(frame(rendered).startsWith('\u001b[35msub-1  \u001b[39m')).toBe(true);
  });

  it("maps Claude Code's colour names to what the terminal draws", () => {
    const colors = new Map([
      ['a', 'purple' as const],
      ['b', 'orange' as const],
    ]);
    expect(agentInkColor(colors, 'a')).toBe('magenta');
    expect(agentInkColor(colors, 'b')).toBe('#ff8700');
    // Only names the map holds: a job named like an object's own property has no colour.
    expect(agentInkColor(colors, 'constructor')).toBeUndefined();
    expect(agentInkColor(undefined, 'a')).toBeUndefined();
  });
});
