import { oneLine } from '../platform/text.js';
import { JobError } from './job-error.js';
import { compareJobIds, kindOf, normalizeJobId } from './job-ids.js';
import { type JobRecord, isEnded } from './job-record.js';
import { type StopContext, abortJob } from './job-stopping.js';
import { NO_TEXT_OUTPUT } from './job-texts.js';

/**
 * Jobs that wait for jobs (agent_start's `after`). A waiting job is `queued` but takes no
 * place in the queue: what it waits on is a promise this class resolves. When every job it
 * names has ended done, their reports are added to its task and it joins the queue; when one
 * fails or is stopped, it ends the same way at once, naming it: it never runs on missing input.
 * Ids must exist when it starts, so no cycle can form.
 */
export class JobDependencies {
  /** Jobs waiting now, with what lets them into the queue (or gives their place up, once ended). */
  private readonly waiting = new Map<string, () => void>();

  constructor(private readonly ctx: StopContext) {
    ctx.table.onFinish((job) => this.ended(job));
  }

  /**
   * The ids `after` names, as job `id` (started by `owner`) may wait for them: existing
   * sub-agents that `owner` started, not failed nor stopped. A JobError names any other.
   */
  check(after: readonly string[], id: string, owner: string | undefined): string[] {
    const ids: string[] = [];
    for (const given of after) {
      const depId = normalizeJobId(given);
      if (depId === id) throw new JobError(`${id} cannot wait for itself: after names jobs started before it`);
      const dep = this.ctx.table.lookup(depId);
      if (!dep || kindOf(dep) !== 'sub' || dep.owner !== owner) throw new JobError(this.refusal(given, dep, owner));
      if (dep.state === 'error' || dep.state === 'aborted') {
        const what = dep.state === 'error' ? `failed (${oneLine(dep.error ?? 'unknown error', 120)})` : 'was stopped';
        throw new JobError(
          `${dep.id} ${what}, so a job waiting for it would run without its report: resume ${dep.id} with agent_send first, or leave it out of after`,
        );
      }
      if (!ids.includes(dep.id)) ids.push(dep.id);
    }
    return ids;
  }

  /**
   * Puts `job` (its `after` checked) to wait. Returns what its run waits for before it takes a
   * place in the queue, or undefined when every job it names has already ended done (their
   * reports are in its task now). Call it before the job's state is published.
   */
  hold(job: JobRecord): Promise<void> | undefined {
    const pending = this.unfinished(job);
    if (pending.length === 0) {
      this.addReports(job);
      return undefined;
    }
    job.waitingFor = pending;
    return new Promise<void>((resolve) => this.waiting.set(job.id, resolve));
  }

  /** The jobs waiting for job `idOrNumber` right now (a JobError names the known ids when it is unknown). */
  dependantsOf(idOrNumber: string): string[] {
    const { id } = this.ctx.table.find(idOrNumber);
    return [...this.waiting.keys()].filter((waiter) => this.ctx.table.lookup(waiter)?.after?.includes(id)).sort(compareJobIds);
  }

  /** A job ended: if it waited, its place is given up; those waiting for it go on, or end as it did. */
  private ended(job: JobRecord): void {
    const own = this.waiting.get(job.id);
    if (own) {
      this.waiting.delete(job.id);
      // The run's queue entry is added with its aborted signal and dropped: the job is settled.
      own();
    }
    for (const [id, release] of [...this.waiting]) {
      const waiter = this.ctx.table.lookup(id);
      if (!waiter || isEnded(waiter.state) || !waiter.after?.includes(job.id)) continue;
      this.recheck(waiter, release);
    }
  }

  /** Ends `waiter` if one of its jobs failed or was stopped; lets it run once all are done; else says what is left. */
  private recheck(waiter: JobRecord, release: () => void): void {
    const deps = (waiter.after ?? []).map((id) => this.ctx.table.lookup(id));
    const failed = deps.find((dep) => dep?.state === 'error');
    if (failed)
      return this.endWaiting(waiter, 'error', `${failed.id}, which it waited for, failed: ${failed.error ?? 'unknown error'}`);
    const stopped = deps.find((dep) => dep?.state === 'aborted');
    if (stopped) return this.endWaiting(waiter, 'aborted', `${stopped.id}, which it waited for, was stopped`);
    const pending = this.unfinished(waiter);
    if (pending.length > 0) {
      waiter.waitingFor = pending;
      this.ctx.table.emitState(waiter);
      return;
    }
    this.waiting.delete(waiter.id);
    this.addReports(waiter);
    this.ctx.table.emitState(waiter);
    release();
  }

  /** Ends a waiting job without running it: `error` is announced to its owner, `aborted` is not (a stop never is). */
  private endWaiting(job: JobRecord, state: 'error' | 'aborted', reason: string): void {
    job.error = reason;
    if (state === 'aborted') {
      abortJob(this.ctx, job);
      return;
    }
    job.state = 'error';
    job.endedAt = this.ctx.now();
    job.controller.abort(new Error(reason));
    this.ctx.delivery.ended(job.id);
    this.ctx.table.finish(job);
  }

  private unfinished(job: JobRecord): string[] {
    return (job.after ?? []).filter((id) => {
      const dep = this.ctx.table.lookup(id);
      return dep !== undefined && !isEnded(dep.state);
    });
  }

  /** Each report, labelled with its job and task, after the job's own task. */
  private addReports(job: JobRecord): void {
    delete job.waitingFor;
    job.afterMet = true;
    const reports = (job.after ?? []).map((id) => {
      const dep = this.ctx.table.lookup(id);
      const text = dep?.result ?? NO_TEXT_OUTPUT;
      return `--- report of ${id} (its task: ${oneLine(dep?.task ?? '', 100)}) ---\n${text}\n--- end of ${id}'s report ---`;
    });
    if (reports.length === 0) return;
    job.task = `${job.task}\n\nReports of the sub-agents this task waited for:\n\n${reports.join('\n\n')}`;
  }

  /** Why `given` cannot be waited for: unknown, a shell, or another agent's job; the ids that can be. */
  private refusal(given: string, dep: JobRecord | undefined, owner: string | undefined): string {
    const mine = this.ctx.table
      .ownedBy(owner)
      .filter((job) => kindOf(job) === 'sub')
      .map((job) => job.id)
      .sort(compareJobIds);
    const known = mine.length ? ` Ids you can wait for: ${mine.join(', ')}.` : ' You have started no sub-agents yet.';
    if (!dep) {
      return `unknown sub-agent id "${given}" in after: a job can wait only for sub-agents already started (one started in this same response may not exist yet: start the waiting job in a later response).${known}`;
    }
    if (kindOf(dep) === 'shell') {
      return `${dep.id} is a background shell; after takes sub-agent ids (poll the shell, then start the sub-agent).${known}`;
    }
    return `${dep.id} was started by ${dep.owner ?? 'the main agent'}, not by you: after takes ids of sub-agents you started.${known}`;
  }
}
