import type { ShellStart } from '../tools/shell-host.js';
import type { ShellHandle } from '../tools/shell-process.js';
import type { DeliveryTracker } from './delivery.js';
import { depthOfId } from './job-ids.js';
import type { JobNumbers } from './job-numbers.js';
import { type JobRecord, isEnded, snapshotOf } from './job-record.js';
import type { JobTable } from './job-table.js';
import type { PollResult, Timers } from './job-types.js';
import { SHELL_POLL_WAIT_MS, newShellJob, waitForShell } from './shell-job.js';
import type { ShellOutput } from './shell-output.js';

/** What the session's shell jobs need from the manager. */
export interface ShellJobsContext {
  table: JobTable;
  delivery: DeliveryTracker;
  numbers: JobNumbers;
  now: () => number;
  timers: Timers;
  pollTimeoutMs?: number;
}

/** Background shells `sh-N` among the session's jobs: taking in a running command, and polling one. */
export class ShellJobs {
  constructor(private readonly ctx: ShellJobsContext) {}

  /**
   * Keeps a running command as a shell job. It takes no queue slot; its end is announced to
   * its owner like a sub-agent's, and it is stopped with its owner.
   */
  adopt(handle: ShellHandle, start: ShellStart): JobRecord {
    const { table, delivery } = this.ctx;
    const owner = start.owner !== undefined ? table.lookup(start.owner) : undefined;
    const job = newShellJob(handle, {
      command: start.command,
      number: this.ctx.numbers.forShell(),
      owner: owner && { id: owner.id, depth: owner.depth ?? depthOfId(owner.id) },
      now: this.ctx.now,
      onLine: (line) => table.emitEvent(job.id, { type: 'tool_update', id: job.id, name: 'bash', text: line }),
      onExit: () => {
        delivery.ended(job.id);
        table.finish(job);
      },
    });
    table.add(job);
    table.emitState(job);
    return job;
  }

  /**
   * A shell's poll: what it printed since the last one. Returns at once when there is new
   * output or it ended; else waits up to 30 s (or the poll timeout) for either.
   */
  async poll(job: JobRecord, output: ShellOutput, signal: AbortSignal): Promise<PollResult> {
    const { table, delivery } = this.ctx;
    if (!isEnded(job.state) && !output.pending()) {
      delivery.pollStarted(job.id);
      const timeoutMs = Math.min(SHELL_POLL_WAIT_MS, this.ctx.pollTimeoutMs ?? SHELL_POLL_WAIT_MS);
      const outcome = await waitForShell({ finished: job.finished, output }, { timers: this.ctx.timers, timeoutMs, signal });
      const ended = isEnded(job.state) && outcome !== 'interrupted';
      if (delivery.pollEnded(job.id, ended)) table.emitDelivered([job.id], 'poll');
      if (outcome === 'interrupted') return { kind: 'interrupted', job: snapshotOf(job) };
    } else if (isEnded(job.state) && delivery.claim(job.id)) {
      table.emitDelivered([job.id], 'poll');
    }
    return { kind: isEnded(job.state) ? 'ended' : 'running', job: snapshotOf(job), output: output.take() };
  }
}
