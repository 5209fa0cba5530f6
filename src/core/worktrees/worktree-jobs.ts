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
} from './worktree.js';
import { type Salvage, salvageWorktree } from './salvage.js';

/** A job's worktree as the session keeps it (in `<session>/worktrees/<job>.json`, so it is listed after a resume). */
export interface WorktreeRecord extends WorktreeInfo {
  /** What its last run changed, once a run has ended. */
  changes?: WorktreeChanges;
}

/** What a merge said: applied (with the jobs that touched the same files), or refused with its conflicts. */
export type MergeReport = MergeResult & { overlaps: { jobId: string; files: string[] }[] };

/** The worktrees of one session's isolated jobs: made when a job runs, committed when it ends, merged or discarded by id. */
export class WorktreeJobs {
  private readonly records = new Map<string, WorktreeRecord>();

  constructor(private readonly options: { cwd: string; stateDir: string; sessionId: string }) {
    this.load();
  }

  /** Every worktree not yet merged or discarded, oldest job first. */
  list(): WorktreeRecord[] {
    return [...this.records.values()].sort((a, b) => a.jobId.localeCompare(b.jobId, 'en', { numeric: true }));
  }

  get(jobId: string): WorktreeRecord | undefined {
    return this.records.get(jobId);
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
    const files = record.changes?.files ?? [];
    const overlaps = new Map<string, string[]>();
    for (const other of this.records.values()) {
      if (other.jobId === jobId) continue;
      const shared = (other.changes?.files ?? []).filter((file) => files.includes(file));
      if (shared.length) overlaps.set(other.jobId, shared);
    }
    for (const file of files) {
      for (const other of touchedBy(file)) {
        if (other !== jobId) overlaps.set(other, [...new Set([...(overlaps.get(other) ?? []), file])]);
      }
    }
    const result = await mergeWorktree(record);
    if (result.ok) await this.discard(jobId);
    return { ...result, overlaps: [...overlaps].map(([id, shared]) => ({ jobId: id, files: shared })) };
  }

  /** Removes the job's worktree and branch, its changes with them. */
  async discard(jobId: string): Promise<void> {
    const record = this.require(jobId);
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

  private require(jobId: string): WorktreeRecord {
    const record = this.records.get(jobId);
    if (!record) {
      const known = this.list().map((r) => r.jobId);
      throw new WorktreeError(
        `${jobId} has no worktree${known.length ? `; jobs with one: ${known.join(', ')}` : ''} (only jobs started with isolation "worktree" have one, until merged or discarded)`,
      );
    }
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
