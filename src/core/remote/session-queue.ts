/**
 * A session's queue: which of its jobs go to workers, and how. A sub-agent the parent starts
 * goes to the queue unless agent_start said `where: "local"` (nested jobs stay with their
 * owner; background shells are never jobs of a queue). Its workspace travels by git: the
 * checkout as it is now (HEAD plus uncommitted changes) is pushed to the shared remote under a
 * ref of the session's own, and the worker fetches that commit.
 */
import type { AgentDefinition } from '../agents/agent-definition.js';
import type { ChildRunRequest, ChildRunner, Job } from '../jobs/job-types.js';
import type { Message } from '../providers/types.js';
import type { PermissionMode } from '../permissions/types.js';
import type { SandboxMode } from '../sandbox/plan.js';
import { checkoutSnapshots } from '../worktrees/worktree.js';
import type { RemoteBranch } from './channels.js';
import type { RemoteWorkspace } from './payload.js';
import { secretValues } from './build-payload.js';
import { RemoteQueueError } from './remote-errors.js';
import { type QueueTiming, remoteChildRunner } from './remote-runner.js';
import { runGit } from './worker-git.js';

/** `agents.queue` in the user's settings (or `--queue`, `--queue-remote`). */
export interface QueueSettings {
  /** `redis://` or `rediss://`, a password in it allowed (never printed). */
  url: string;
  /** The git remote both ends reach: the session pushes the checkout there, workers push branches back. */
  remote?: string;
  /** Keys live under `outrider:<namespace>`: one per team or user sharing a Redis. */
  namespace?: string;
  /** Times a job whose worker died runs again (default 0: it ends "worker lost"). */
  retries?: number;
}

export interface SessionQueueOptions {
  settings: QueueSettings;
  cwd: string;
  sessionId: string;
  definitions: () => Map<string, AgentDefinition>;
  /** The session's keys: never in a payload (nor any credential-named variable of `env`). */
  secrets: readonly string[];
  permissionMode?: PermissionMode;
  sandbox?: SandboxMode;
  /** Tells the user something about the queue (its connection lost, back, given up). */
  notice: (level: 'info' | 'warn', text: string) => void;
  /**
   * A queue job's branch, fetched into the checkout's repository as it ended: what agent_merge
   * and `/agents merge` apply (worktrees/worktree-jobs.ts `adopt`).
   */
  onBranch?: (
    jobId: string,
    branch: { repo: string; branch: string; base: string; changes: Omit<RemoteBranch, 'name' | 'commit'> },
  ) => void;
  /** Each message of a queue job's conversation as it streams back (its transcript). */
  onTranscript?: (request: ChildRunRequest, message: Message) => void;
  env: NodeJS.ProcessEnv;
  timing?: QueueTiming;
}

export interface SessionQueue {
  /** The queue's address with its password hidden. */
  readonly description: string;
  /** Runs a job on a worker, or follows one sent by an earlier run of the session. */
  run: ChildRunner;
  /** Whether a job goes to the queue. */
  takes(job: Pick<Job, 'kind' | 'where' | 'depth'> & { attach?: unknown }): boolean;
  /** Stops following: queue jobs go on on their workers, to be attached again by --continue. */
  detach(): Promise<void>;
}

/** Opens the session's queue, or throws a RemoteQueueError that says what to set or start. */
export async function openSessionQueue(options: SessionQueueOptions): Promise<SessionQueue> {
  const { settings } = options;
  const remote = settings.remote;
  if (!remote) {
    throw new RemoteQueueError(
      'jobs sent to a queue need a git remote both this machine and the workers reach: set agents.queue.remote in your settings or pass --queue-remote <git-url>',
    );
  }
  const requests = new Map<string, ChildRunRequest>();
  // Per job: the snapshot it was sent with, and the branch its worker pushed back.
  const snapshots = new Map<string, { repo: string; commit: string }>();
  const branches = new Map<string, RemoteBranch>();
  let pending: ReturnType<typeof pushCheckout> | undefined;
  let snapshotter: ReturnType<typeof checkoutSnapshots> | undefined;
  const runner = remoteChildRunner({
    redisUrl: settings.url,
    namespace: settings.namespace,
    retries: settings.retries,
    sessionId: options.sessionId,
    definitions: options.definitions,
    workspaceFor: async (request) => {
      // Jobs started together (one tool batch) share one snapshot and one push: a snapshot
      // already under way when a job is sent is the checkout as that job found it.
      snapshotter ??= checkoutSnapshots(options.cwd);
      pending ??= pushCheckout(options, remote, request.id, snapshotter).finally(() => (pending = undefined));
      const pushed = await pending;
      snapshots.set(request.id, pushed.snapshot);
      return pushed.workspace;
    },
    labelsFor: (_request, definition) => definition.runsOn ?? [],
    permissionMode: options.permissionMode,
    sandbox: options.sandbox,
    secrets: secretValues(options.env, options.secrets),
    onEnqueued: (jobId, remoteId) => requests.get(jobId)?.onRemote?.({ remoteId }),
    onWorker: (jobId, worker) => requests.get(jobId)?.onRemote?.({ worker }),
    onBranch: (jobId, branch) => branches.set(jobId, branch),
    onTranscript: (jobId, message) => {
      const request = requests.get(jobId);
      if (!request) return;
      options.onTranscript?.(request, message);
      request.onMessage?.(message);
    },
    onConnection: (state) => options.notice(state.kind === 'back' ? 'info' : 'warn', state.text),
    ...(options.timing ? { timing: options.timing } : {}),
  });
  await runner.check();
  const follow = async (request: ChildRunRequest, run: () => ReturnType<ChildRunner>) => {
    requests.set(request.id, request);
    try {
      const outcome = await run();
      const branch = branches.get(request.id);
      const snapshot = snapshots.get(request.id);
      if (!branch || !snapshot) return outcome;
      // Its branch comes into the checkout's repository before the job's end is told.
      const fetched = await runGit(
        snapshot.repo,
        ['fetch', '-q', '--no-tags', remote, `+refs/heads/${branch.name}:refs/heads/${branch.name}`],
        options.env,
      );
      if (fetched.code !== 0) {
        const why = fetched.stderr.trim().split('\n')[0] || `exit code ${fetched.code}`;
        return {
          ...outcome,
          text: `${outcome.text}\n\nIts branch ${branch.name} is on ${remote} but could not be fetched (${why}).`,
        };
      }
      const { name, commit: _commit, ...changes } = branch;
      options.onBranch?.(request.id, { repo: snapshot.repo, branch: name, base: snapshot.commit, changes });
      return outcome;
    } finally {
      requests.delete(request.id);
      branches.delete(request.id);
    }
  };
  return {
    description: runner.description,
    run: (request) =>
      follow(request, () =>
        request.attach
          ? runner.attach(request.attach.remoteId, request, request.attach.cursor ? { after: request.attach.cursor } : {})
          : runner(request),
      ),
    takes: (job) => job.attach !== undefined || (job.kind !== 'shell' && job.where !== 'local' && (job.depth ?? 1) === 1),
    detach: () => runner.close(),
  };
}

/** The checkout as it is now, pushed to the shared remote under the session's own ref. */
async function pushCheckout(
  options: SessionQueueOptions,
  remote: string,
  jobId: string,
  snapshots: ReturnType<typeof checkoutSnapshots>,
): Promise<{ workspace: RemoteWorkspace; snapshot: { repo: string; commit: string } }> {
  let snapshot: { repo: string; commit: string };
  try {
    snapshot = await (await snapshots).take(`outrider: the checkout as ${jobId} was sent to the queue`);
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error);
    throw new RemoteQueueError(`${jobId} cannot go to the queue: the checkout could not be snapshot (${why})`);
  }
  // Under refs/outrider-snapshots, not refs/heads (a branch of the same name would be ambiguous),
  // named by the commit: jobs that share a snapshot share its ref.
  const ref = `refs/outrider-snapshots/${options.sessionId}/${snapshot.commit}`;
  const pushed = await runGit(snapshot.repo, ['push', '-q', '--force', remote, `${snapshot.commit}:${ref}`], options.env);
  if (pushed.code !== 0) {
    const why = pushed.stderr.trim().split('\n')[0] || `exit code ${pushed.code}`;
    throw new RemoteQueueError(
      `could not push the checkout to ${remote} for ${jobId} (${why}): check agents.queue.remote and your git access to it`,
    );
  }
  return { workspace: { remote, commit: snapshot.commit, ref }, snapshot };
}
