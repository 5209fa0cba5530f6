import { mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { makeWorkspace } from '../platform/paths.js';
import type { Workspace } from '../tools/define.js';
import type { ChildRunner } from '../jobs/job-types.js';
import {
  type MergeResult,
  type WorktreeChanges,
  type WorktreeInfo,
  WorktreeError,
  commitWorktree,
  createWorktree,
  describeChanges,
  mergeWorktree,
  removeWorktree,
  workingChanges,
} from './worktree.js';
import { type Salvage, salvageWorktree } from './salvage.js';
import type { MergeCheck } from './merge-check.js';
import { type QueueResult, runMergeQueue } from './merge-queue.js';

/** A job's worktree as the session keeps it (in `<session>/worktrees/<job>.json`, so it is listed after a resume). */
export interface WorktreeRecord extends WorktreeInfo {
  /** What its last run changed, once a run has ended. */
  changes?: WorktreeChanges;
}

/** What a merge said: applied (with the jobs that touched the same files), or refused with its conflicts. */
export type MergeReport = MergeResult & { overlaps: { jobId: string; files: string[] }[] };

/** What a merge of several jobs said: the queue's outcome, and which jobs not merged touch the same files. */
export type QueueReport = QueueResult & { overlaps: { jobId: string; files: string[] }[] };

export interface WorktreeJobsOptions {
  cwd: string;
  stateDir: string;
  sessionId: string;
  /** `agents.mergeCheck`: run after each job a merge applies; without it, no check. */
  check?: MergeCheck | undefined;
}

/** The worktrees of one session's isolated jobs: made when a job runs, committed when it ends, merged or discarded by id. */
export class WorktreeJobs {
  private readonly records = new Map<string, WorktreeRecord>();
  /** Jobs a merge is applying now: another merge or a discard of them waits for it to end. */
  private readonly merging = new Set<string>();

  constructor(private readonly options: WorktreeJobsOptions) {
    this.load();
  }

  /** The session's merge check, if one is set. */
  get check(): MergeCheck | undefined {
    return this.options.check;
  }

  /** Every worktree not yet merged or discarded, oldest job first. */
  list(): WorktreeRecord[] {
    return [...this.records.values()].sort((a, b) => a.jobId.localeCompare(b.jobId, 'en', { numeric: true }));
  }

  get(jobId: string): WorktreeRecord | undefined {
    return this.records.get(jobId);
  }

  /**
   * What the job's branch changes now: a running job's worktree as it stands (its files
   * uncommitted), else what its last run committed. Undefined when the job has no worktree.
   */
  async changesNow(jobId: string, options: { running: boolean }): Promise<WorktreeChanges | undefined> {
    const record = this.records.get(jobId);
    // A queue job's branch has no worktree here; a merge under way is moving its files.
    if (!record || !options.running || !record.path || this.merging.has(jobId)) return record?.changes;
    return workingChanges(record);
  }

  /** The job's worktree, made now when it has none (a job resumed after a merge gets a fresh one). */
  async prepare(jobId: string): Promise<WorktreeRecord> {
    const existing = this.records.get(jobId);
    if (existing) return existing;
    const info = await createWorktree({ ...this.options, jobId });
    this.save(info);
    return info;
  }

  /**
   * A job's branch made elsewhere (a queue job's, fetched into the checkout's repository): listed,
   * merged and discarded like the others. It has no worktree here (`path` is empty).
   */
  adopt(record: WorktreeRecord): void {
    this.save(record);
  }

  /** Commits the job's work onto its branch; returns the line its result ends with. */
  async finish(jobId: string, task: string): Promise<string> {
    const record = this.records.get(jobId);
    if (!record) return '';
    const changes = await commitWorktree(record, `${jobId}: ${task.split('\n')[0]!.slice(0, 72)}`);
    this.save({ ...record, changes });
    return describeChanges(record, changes);
  }

  /**
   * After a crash cut the job off: commits what its worktree holds uncommitted onto its branch
   * and records what the branch now changes. Undefined when the job has no worktree.
   */
  async salvage(jobId: string, task: string): Promise<(Salvage & { branch: string }) | undefined> {
    const record = this.records.get(jobId);
    if (!record) return undefined;
    const salvaged = await salvageWorktree(
      record,
      `${jobId}: salvaged after the session ended (${task.split('\n')[0]!.slice(0, 60)})`,
    );
    this.save({ ...record, changes: salvaged.changes });
    return { ...salvaged, branch: record.branch };
  }

  /**
   * Applies the job's branch to the checkout (nothing, when a file conflicts), then removes its
   * worktree and branch. Names the other jobs whose changes touch the same files.
   */
  async merge(jobId: string, touchedBy: (file: string) => string[] = () => []): Promise<MergeReport> {
    const record = this.require(jobId);
    const overlaps = this.overlapsOf([jobId], touchedBy);
    const result = await this.holding([jobId], () => mergeWorktree(record));
    if (result.ok) await this.discard(jobId);
    return { ...result, overlaps };
  }

  /**
   * The merge queue: applies the jobs' branches in this order to a temporary worktree of the
   * checkout, runs the merge check after each, and only when all apply and pass writes the
   * checkout and removes the jobs' worktrees and branches. Otherwise nothing of the checkout,
   * the branches or the worktrees changes. `ids` are checked already (merge-targets.ts).
   */
  async mergeAll(
    ids: readonly string[],
    options: { signal?: AbortSignal; touchedBy?: (file: string) => string[] } = {},
  ): Promise<QueueReport> {
    const records = ids.map((id) => this.require(id));
    const repo = records[0]?.repo;
    if (!repo || records.some((record) => record.repo !== repo)) {
      throw new WorktreeError(`${ids.join(', ')} do not share one checkout, so they cannot be merged together`);
    }
    const overlaps = this.overlapsOf(ids, options.touchedBy ?? (() => []));
    const result = await this.holding(ids, () =>
      runMergeQueue(records, {
        repo,
        scratchDir: this.options.stateDir,
        signal: options.signal ?? new AbortController().signal,
        ...(this.options.check ? { check: this.options.check } : {}),
      }),
    );
    if (result.ok) for (const id of ids) await this.discard(id);
    return { ...result, overlaps };
  }

  /** The other jobs (not among `ids`) whose changes touch the files the jobs changed. */
  private overlapsOf(ids: readonly string[], touchedBy: (file: string) => string[]): { jobId: string; files: string[] }[] {
    const files = new Set(ids.flatMap((id) => this.records.get(id)?.changes?.files ?? []));
    const overlaps = new Map<string, string[]>();
    const add = (other: string, file: string) => {
      if (!ids.includes(other)) overlaps.set(other, [...new Set([...(overlaps.get(other) ?? []), file])]);
    };
    for (const other of this.records.values()) {
      for (const file of other.changes?.files ?? []) if (files.has(file)) add(other.jobId, file);
    }
    for (const file of files) for (const other of touchedBy(file)) add(other, file);
    return [...overlaps].map(([jobId, shared]) => ({ jobId, files: shared }));
  }

  /** Runs `work` with the jobs marked as being merged; refused when a merge already holds one. */
  private async holding<T>(ids: readonly string[], work: () => Promise<T>): Promise<T> {
    const busy = ids.filter((id) => this.merging.has(id));
    if (busy.length)
      throw new WorktreeError(
        `${busy.join(', ')} ${busy.length === 1 ? 'is' : 'are'} being merged already; wait for that merge to end`,
      );
    for (const id of ids) this.merging.add(id);
    try {
      return await work();
    } finally {
      for (const id of ids) this.merging.delete(id);
    }
  }

  /** Removes the job's worktree and branch, its changes with them. */
  async discard(jobId: string): Promise<void> {
    const record = this.require(jobId);
    if (this.merging.has(jobId)) throw new WorktreeError(`${jobId} is being merged; wait for that merge to end`);
    await removeWorktree(record);
    this.records.delete(jobId);
    rmSync(this.fileOf(jobId), { force: true });
  }

  /**
   * Wraps a child runner: an isolated job runs in its worktree (its tools rooted there, so it
   * cannot write the checkout), and its result ends with its branch and what it changed.
   */
  runner(run: ChildRunner, isolated: (jobId: string, definition: string) => boolean): ChildRunner {
    return async (request) => {
      if (!isolated(request.id, request.definition)) return run(request);
      const record = await this.prepare(request.id);
      const workspace: Workspace = makeWorkspace(record.path);
      const note =
        `You work in an isolated git worktree at ${record.path}, a copy of the project on branch ${record.branch}: ` +
        'use paths relative to it (the original checkout is not writable). Your changes are committed there when you finish.';
      const outcome = await run({
        ...request,
        workspace,
        instructions: request.instructions ? `${note}\n\n${request.instructions}` : note,
      });
      const report = await this.finish(request.id, request.task);
      return { ...outcome, text: `${outcome.text}\n\n${report}` };
    };
  }

  /** Why `jobId` cannot be merged or discarded when it has no worktree: which jobs have one. */
  missing(jobId: string): string {
    const known = this.list().map((r) => r.jobId);
    return `${jobId} has no worktree${known.length ? `; jobs with one: ${known.join(', ')}` : ''} (only jobs started with isolation "worktree" have one, until merged or discarded)`;
  }

  private require(jobId: string): WorktreeRecord {
    const record = this.records.get(jobId);
    if (!record) throw new WorktreeError(this.missing(jobId));
    return record;
  }

  private fileOf(jobId: string): string {
    return path.join(this.options.stateDir, `${jobId}.json`);
  }

  private save(record: WorktreeRecord): void {
    this.records.set(record.jobId, record);
    mkdirSync(this.options.stateDir, { recursive: true, mode: 0o700 });
    writeFileSync(this.fileOf(record.jobId), JSON.stringify(record), { mode: 0o600 });
  }

  private load(): void {
    let names: string[];
    try {
      names = readdirSync(this.options.stateDir).filter((name) => name.endsWith('.json'));
    } catch {
      return;
    }
    for (const name of names) {
      try {
        const record = JSON.parse(readFileSync(path.join(this.options.stateDir, name), 'utf8')) as WorktreeRecord;
        if (typeof record.jobId === 'string' && typeof record.path === 'string') this.records.set(record.jobId, record);
      } catch {
        // A half-written record names nothing we could merge; the worktree stays for git to list.
      }
    }
  }
}
