import { describe, expect, it } from 'vitest';
import type { StatusCommand } from '../../../src/core/hooks/status-command.js';
import { costOf, modelInfo } from '../../../src/core/providers/models.js';
import type { Usage } from '../../../src/core/providers/types.js';
import { JobScreenHost } from '../../../src/ui/components/job-screen-host.js';
import { JobStatusRows } from '../../../src/ui/components/job-status-rows.js';
import { entryLines, liveLines } from '../../../src/ui/components/entry-lines.js';
import { jobTranscript } from '../../../src/ui/state/job-transcript.js';
import { JobViewStore } from '../../../src/ui/state/job-view-store.js';
import { initialUiState, UiStore } from '../../../src/ui/state/ui-store.js';
import type { UiSession } from '../../../src/ui/ui-session.js';
import { FakeClock } from '../../support/fake-clock.js';
import { frame, jobView, mount, until } from '../harness.js';

// The parent on a cheap model, its sub-agent on one fifteen times dearer: the same usage is
// $0.20 at the parent's prices ($1 / $5 a million) and $3.00 at the job's ($15 / $75).
const PARENT = 'claude-haiku-4-5';
const JOB = 'claude-opus-4-1';
const usage: Usage = { input: 100_000, output: 20_000, cacheRead: 0, cacheWrite: 0 };
const AT_JOB = '$3.00';
const AT_PARENT = '$0.20';
const WIDTH = 100;

const view = jobView({ number: 1, model: JOB, usage, turns: 2 });

/**
 * The part of a session these components read. Its `costOf` prices as the core's does: at the
 * job's model when given a job id, else at the parent's, so a caller that drops the id sees the
 * parent's price.
 */
function fakeSession(statusLine?: UiSession['statusLine']): UiSession {
  const models = new Map([[view.job.id, JOB]]);
  const session: Partial<UiSession> = {
    model: PARENT,
    root: '/w',
    sessionId: 'session-1',
    ...(statusLine ? { statusLine } : {}),
    costOf: (u, jobId) => costOf(u, modelInfo((jobId && models.get(jobId)) || PARENT)),
    cost: () => {
      throw new Error('the job rows and the job view price the job alone');
    },
  };
  return session as UiSession;
}

function rows(session: UiSession) {
  const clock = new FakeClock();
  // The status line's input is read from the store's view of the job.
  const store = new UiStore(initialUiState({ intro: [], storedJobs: [{ job: view.job, messages: [] }], wakeOnComplete: false }));
  const element = (
    <JobStatusRows
      status={{ session, store, clock, say: () => {} }}
      jobs={[view]}
      now={5000}
      width={WIDTH}
      maxLines={5}
      root="/w"
    />
  );
  return { clock, element };
}

describe("a sub-agent on a dearer model than the parent's", () => {
  it("its row shows its cost at its own model's prices", async () => {
    const rendered = await mount(rows(fakeSession()).element);
    const text = frame(rendered);
    expect(text).toMatch(/^sub-1 /);
    expect(text).toContain(AT_JOB);
    expect(text).not.toContain(AT_PARENT);
  });

  it("its subagentStatusLine input has its cost at its own model's prices", async () => {
    const inputs: Record<string, unknown>[] = [];
    const subagent: StatusCommand = {
      command: 'rows.sh',
      padding: 0,
      run: async (input) => {
        inputs.push(input as Record<string, unknown>);
        return { kind: 'line', line: `custom ${String((input as { cost_usd: unknown }).cost_usd)}` };
      },
    };
    const { clock, element } = rows(fakeSession({ subagent }));
    const rendered = await mount(element);
    await until(() => frame(rendered).includes('custom '), { clock, rendered, what: "the row's status line" });
    expect(inputs[0]).toMatchObject({ id: 'sub-1', model: JOB });
    expect(inputs[0]!.cost_usd).toBeCloseTo(3, 10);
    expect(frame(rendered)).toContain('sub-1  custom 3');
  });

  it("its full-screen view shows its cost at its own model's prices", async () => {
    const clock = new FakeClock();
    const body = new JobViewStore(jobTranscript('sub-1', { messages: [], pending: [] }, { running: true, root: '/w' }), {
      entryLines,
      liveLines,
      width: WIDTH,
      height: 20,
    });
    const rendered = await mount(
      <JobScreenHost
        shown={{ id: 'sub-1', body }}
        jobs={new Map([['sub-1', view]])}
        close={() => {}}
        app={{
          session: fakeSession(),
          clock,
          now: 5000,
          width: WIDTH,
          height: 30,
          pending: [],
          commands: { stopJobs: () => {}, sendToJob: () => true, worktree: async () => ({ content: '', isError: false }) },
          worktrees: [],
        }}
      />,
    );
    await until(() => frame(rendered).includes('$'), { clock, rendered, what: "the view's figures" });
    const text = frame(rendered);
    expect(text).toContain(AT_JOB);
    expect(text).not.toContain(AT_PARENT);
  });
});
