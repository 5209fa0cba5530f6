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
    const checkout = await git.checkout({
      remote: payload.workspace.remote,
      commit: payload.workspace.commit,
      ...(payload.workspace.ref ? { ref: payload.workspace.ref } : {}),
      remoteId: payload.remoteId,
      signal: context.signal,
    });
    try {
      const { outcome, usage } = await runChild(payload, context, checkout.path, { ...options, secrets, scrub });
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
    gateFor: (jobId, def, where) => childGate({ session: gate, workspace: where, jobId, definition: def, headless: true }),
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
