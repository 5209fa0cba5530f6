/**
 * How a worker runs one job: the job's commit in a fresh worktree of the worker's cache clone,
 * the child loop (the same `createChildRunner` a session uses) with the worker's OWN provider
 * and key, its permission mode and sandbox as granted (ceiling.ts), headless (an approval that
 * would be asked is denied), and, when the child changed files, a branch pushed back to the
 * shared remote. The wiring mirrors a session's (open-session.ts) for the parts a child needs.
 */
import { CHILD_LIMITS, createChildRunner } from '../agents/child-run.js';
import { childGate } from '../agents/child-gate.js';
import { MIN_SECRET_LENGTH, PROVIDER_KEY_VARIABLES } from '../config/key-variables.js';
import { ApprovalGate } from '../permissions/approvals.js';
import { withoutSecrets } from '../platform/child-env.js';
import { makeWorkspace } from '../platform/paths.js';
import { scrubForms, secretForms } from '../platform/secret-forms.js';
import { type StreamFn, type Usage, addUsage, emptyUsage } from '../providers/types.js';
import { sessionProbe } from '../sandbox/probe.js';
import { builtinTools } from '../tools/builtin.js';
import { readResultTool } from '../tools/read-result.js';
import { ToolRegistry } from '../tools/registry.js';
import { ResultStore } from '../tools/result-store.js';
import type { RemoteBranch } from './channels.js';
import { definitionOf, messagesOf, type RemoteJobPayload } from './payload.js';
import type { RemoteJobContext, RemoteJobResult, RemoteJobRunner } from './queue-worker.js';
import { GitCache } from './worker-git.js';

export interface WorkerJobOptions {
  /** Where the cache clones and the jobs' worktrees live (the worker's, e.g. ~/.outrider/worker). */
  cacheDir: string;
  /** The worker's environment: its git credentials; its provider key is kept from every command. */
  env: NodeJS.ProcessEnv;
  /** The worker's own model connection (createProvider with the worker's key). */
  stream: StreamFn;
  /** The worker's model, for a job that names none and whose definition inherits. */
  model: string;
  maxTokens: number;
  /** The key in use, scrubbed from every tool's output like the key variables. */
  apiKey?: string;
  /** The duration limit's clock (tests pass a fake). */
  now?: () => number;
}

/** The RemoteJobRunner a worker hands `runWorker`. */
export function createWorkerJobRunner(options: WorkerJobOptions): RemoteJobRunner {
  const git = new GitCache(options.cacheDir, withoutProviderKeys(options.env));
  const secrets = workerSecrets(options.env, options.apiKey);
  const forms = [...new Set(secrets.values.flatMap(secretForms))].sort((a, b) => b.length - a.length);
  const scrub = (text: string) => (forms.length ? scrubForms(text, forms) : text);

  return async (payload, context) => {
    // The child's first model request needs none of the job's files: it is sent while the
    // worktree is fetched and made, and its first tool call waits for them (runChild's gate).
    const checkingOut = git.checkout({
      remote: payload.workspace.remote,
      commit: payload.workspace.commit,
      ...(payload.workspace.ref ? { ref: payload.workspace.ref } : {}),
      remoteId: payload.remoteId,
      signal: context.signal,
    });
    // A checkout that fails stops the child at once: the job ends with the checkout's error.
    const stopChild = new AbortController();
    const files = checkingOut.then(
      () => undefined,
      (error: unknown) => {
        stopChild.abort();
        return scrub(error instanceof Error ? error.message : String(error));
      },
    );
    // From a remote whose last checkout failed (a worker without access to it, say), the child
    // waits for its files, so a broken set-up costs one model request, not one per job.
    if (!git.reaches(payload.workspace.remote) && (await files) !== undefined && !context.signal.aborted) {
      throw await checkingOut.catch((error: unknown) => error);
    }
    const child = { ...context, signal: AbortSignal.any([context.signal, stopChild.signal]) };
    const ran = await runChild(payload, child, git.worktreePath(payload.remoteId), files, { ...options, secrets, scrub }).then(
      (result) => ({ result }),
      (error: unknown) => ({ error }),
    );
    const checkoutError = await files;
    if (checkoutError !== undefined) {
      // Stopped while its files were fetched: the child's own "stopped" outcome says so.
      if (context.signal.aborted && 'result' in ran) return ran.result;
      throw await checkingOut.catch((error: unknown) => error);
    }
    const checkout = await checkingOut;
    try {
      if ('error' in ran) throw ran.error;
      const { outcome, usage } = ran.result;
      let branch: RemoteBranch | undefined;
      try {
        branch = await checkout.pushChanges(
          `outrider/${payload.sessionId}/${payload.jobId}`,
          `outrider: ${payload.jobId} (${payload.definition.name})`,
        );
      } catch (error) {
        const why = scrub((error as Error).message);
        return { outcome: { ...outcome, status: 'error', error: `its changes could not be pushed: ${why}` }, usage };
      }
      return { outcome, usage, ...(branch ? { branch } : {}) };
    } finally {
      await checkout.remove().catch(() => undefined);
    }
  };
}

interface ChildParts extends WorkerJobOptions {
  secrets: { names: readonly string[]; values: readonly string[] };
  scrub: (text: string) => string;
}

async function runChild(
  payload: RemoteJobPayload,
  context: RemoteJobContext,
  root: string,
  /** Settles once the job's files are in `root`: undefined, or why they could not be. */
  files: Promise<string | undefined>,
  parts: ChildParts,
): Promise<Omit<RemoteJobResult, 'branch'>> {
  const workspace = makeWorkspace(root);
  const definition = definitionOf(payload);
  const results = new ResultStore();
  const limiter = results.limiter();
  const sandbox = {
    config: { mode: context.grant.sandbox, network: false },
    probe: sessionProbe(workspace, context.signal, () => undefined),
  };
  const commandEnv = withoutSecrets(parts.env, parts.secrets, { credentials: false });
  const tools = new ToolRegistry([
    ...builtinTools({
      bash: { sandbox, secrets: parts.secrets, scrub: parts.scrub, env: commandEnv },
      rgEnv: withoutSecrets(parts.env, parts.secrets, { credentials: true }),
    }),
    readResultTool(results),
  ]);
  // Nobody is at a worker's terminal: whatever the mode would ask is denied, saying so.
  const gate = new ApprovalGate({ mode: context.grant.permissionMode, headless: true });
  const { caps } = context.grant;
  const run = createChildRunner({
    definitions: () => new Map([[definition.name, definition]]),
    parentTools: tools,
    stream: parts.stream,
    model: parts.model,
    maxTokens: parts.maxTokens,
    workspace,
    limits: {
      maxTurns: caps.maxTurns ?? CHILD_LIMITS.maxTurns,
      maxTotalTokens: caps.maxTotalTokens ?? CHILD_LIMITS.maxTotalTokens,
      maxDuration: caps.maxDurationMs ?? CHILD_LIMITS.maxDuration,
    },
    gateFor: (jobId, def, where) => {
      const childGated = childGate({ session: gate, workspace: where, jobId, definition: def, headless: true });
      // Every tool call passes the gate: none is judged or run before the job's files are there.
      return async (call, signal) => {
        const missing = await files;
        if (missing !== undefined)
          return { allowed: false, message: `Not run: the job's files could not be fetched (${missing}).` };
        return childGated(call, signal);
      };
    },
    limitOutput: (output, toolName) => limiter({ ...output, content: parts.scrub(output.content) }, toolName),
    transcriptFor: () => ({ append: context.onMessage }),
    ...(parts.now ? { now: parts.now } : {}),
  });
  let usage: Usage = emptyUsage();
  const outcome = await run({
    id: payload.jobId,
    task: payload.task,
    ...(payload.instructions !== undefined ? { instructions: payload.instructions } : {}),
    definition: definition.name,
    mode: payload.mode,
    ...(payload.fork ? { fork: payload.fork as never } : {}),
    ...(payload.resume ? { resume: messagesOf(payload.resume) } : {}),
    ...(payload.model !== undefined ? { model: payload.model } : {}),
    // The effort the job had on the session's side; sent only where the worker's model takes one (effort.ts).
    ...(payload.effort !== undefined ? { effort: payload.effort } : {}),
    depth: 1,
    signal: context.signal,
    onEvent: (event) => {
      if (event.type === 'usage') usage = addUsage(usage, event.usage);
      context.onEvent(event);
    },
    takeInbox: context.takeInbox,
    takeMessages: context.takeInbox,
    workspace,
  });
  const { status, text, error } = outcome;
  return { outcome: { status, text, ...(error !== undefined ? { error } : {}) }, usage };
}

/** The worker's key (in use, and every provider key variable): kept from commands and scrubbed from output. */
function workerSecrets(env: NodeJS.ProcessEnv, apiKey: string | undefined) {
  const values = [apiKey ?? '', ...PROVIDER_KEY_VARIABLES.map((name) => env[name]?.trim() ?? '')];
  return { names: PROVIDER_KEY_VARIABLES, values: [...new Set(values.filter((v) => v.length >= MIN_SECRET_LENGTH))] };
}

function withoutProviderKeys(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const out = { ...env };
  for (const name of PROVIDER_KEY_VARIABLES) delete out[name];
  return out;
}
