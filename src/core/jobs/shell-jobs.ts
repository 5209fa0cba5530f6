import type { ShellStart } from '../tools/shell-host.js';
import type { ShellHandle } from '../tools/shell-process.js';
import type { DeliveryTracker } from './delivery.js';
import { depthOfId } from './job-ids.js';
import type { JobNumbers } from './job-numbers.js';
import { type JobRecord, isEnded, snapshotOf } from './job-record.js';
import type { JobTable } from './job-table.js';
import type { PollResult, SendResult, Timers } from './job-types.js';
import { JobError } from './job-error.js';
import { SHELL_INPUT_CAP } from '../tools/shell-process.js';
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

/** Background shells `sh-N` among the session's jobs: taking in a running command, writing to it, polling it. */
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
      ...(start.ranForMs ? { ranForMs: start.ranForMs } : {}),
      onLine: (line) => table.emitEvent(job, { type: 'tool_update', id: job.id, name: 'bash', text: line }),
      ...(start.scrub ? { scrub: start.scrub } : {}),
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

  /**
   * agent_send to a shell: the text and a newline go to its stdin, without waiting for the
   * process to read them. A shell that ended, has no stdin, closed it, or has too much unread
   * is refused with what to do instead.
   */
  write(job: JobRecord, text: string): SendResult {
    const { id } = job;
    const how =
      job.state === 'aborted' ? 'was stopped' : job.state === 'done' ? 'exited with code 0' : `ended (${job.error ?? 'failed'})`;
    // Read back from an earlier run of the session: its process went with that run.
    if (!job.shell) {
      throw new JobError(
        `${id} is from an earlier run of this session and ${how}; a shell cannot be resumed. Run the command again with bash run_in_background.`,
      );
    }
    if (isEnded(job.state)) {
      throw new JobError(`${id} ${how}: it reads no more input. Start a new shell with bash run_in_background.`);
    }
    const outcome = job.shell.handle.write(`${text}\n`);
    switch (outcome.kind) {
      case 'written':
        return { kind: 'stdin', job: snapshotOf(job), pendingBytes: 0 };
      case 'pending':
        return { kind: 'stdin', job: snapshotOf(job), pendingBytes: outcome.bytes };
      case 'refused':
        switch (outcome.reason) {
          case 'no-stdin':
            throw new JobError(
              `${id} has no stdin to write to: it was started in the foreground and moved to the background. Start the command with bash run_in_background to write to it.`,
            );
          case 'closed':
            throw new JobError(
              `${id}'s process closed its stdin: it reads no more input. Call agent_poll with id ${id} for its output, or agent_stop to end it.`,
            );
          case 'exited':
            throw new JobError(
              `${id}'s process has exited: it reads no more input. Call agent_poll with id ${id} for its output and exit code.`,
            );
          case 'full':
            throw new JobError(
              outcome.pending > 0
                ? `${id} has not read the ${outcome.pending} bytes written to it before; nothing was written (at most ${SHELL_INPUT_CAP} bytes may wait). Call agent_poll with id ${id} to see what it does.`
                : `the message is ${outcome.bytes} bytes, more than the ${SHELL_INPUT_CAP} a shell's stdin may hold; nothing was written. Write it to a file and have the command read that file.`,
            );
        }
    }
  }
}
