import type { WorktreeRecord } from '../../core/index.js';
import type { PendingApproval } from '../approval-broker.js';
import type { Clock } from '../clock.js';
import type { JobScreenControl } from '../bindings/use-job-screen.js';
import type { JobsState } from '../state/jobs.js';
import type { UiSession } from '../ui-session.js';
import { JobScreen } from './job-screen.js';

/** What the app hands the job view: its session, clock and size, the approvals waiting, its commands. */
export interface JobScreenApp {
  session: UiSession;
  clock: Clock;
  now: number;
  width: number;
  height: number;
  pending: readonly PendingApproval[];
  /** The app's own line (a key waiting for its second press). */
  message?: string;
  commands: {
    stopJobs: (id: string) => void;
    sendToJob: (id: string, text: string) => boolean;
    worktree: (verb: 'merge' | 'discard', id: string) => Promise<{ content: string; isError: boolean }>;
  };
  /** Isolated jobs' worktrees not yet merged or discarded. */
  worktrees: readonly WorktreeRecord[];
}

/** The shown job's view, wired to the app: its job as the chat knows it, its cost, its worktree, Esc back. */
export function JobScreenHost({
  shown,
  jobs,
  close,
  app,
}: {
  shown: NonNullable<JobScreenControl['shown']>;
  jobs: JobsState;
  close: JobScreenControl['close'];
  app: JobScreenApp;
}) {
  const view = jobs.get(shown.id);
  if (!view) return null;
  const { session, commands } = app;
  return (
    <JobScreen
      body={shown.body}
      view={view}
      now={app.now}
      width={app.width}
      height={app.height}
      clock={app.clock}
      worktree={app.worktrees.find((record) => record.jobId === shown.id)}
      changesOf={session.worktreeChanges && ((id, options) => session.worktreeChanges!(id, options))}
      cost={session.costOf(view.job.usage, view.job.id)}
      pending={app.pending}
      message={app.message}
      onStop={commands.stopJobs}
      onSend={commands.sendToJob}
      onWorktree={commands.worktree}
      onClose={() => close()}
      root={session.root}
    />
  );
}
