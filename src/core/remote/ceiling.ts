/**
 * What a worker allows, and what one job gets of it. The worker's permission mode and sandbox
 * are a ceiling: a job may ask for less (it runs with less), never for more (it is refused,
 * not quietly narrowed, so the session learns the worker will not do what it expected). Caps
 * are limits on spending: the smaller of the job's and the worker's holds.
 */
import { narrowerMode } from '../agents/child-gate.js';
import type { PermissionMode } from '../permissions/types.js';
import type { SandboxMode } from '../sandbox/plan.js';
import type { RemoteCaps, RemoteJobPayload } from './payload.js';
import { PayloadRefused } from './remote-errors.js';

/** The most a worker lets any job do. */
export interface WorkerCeiling {
  permissionMode: PermissionMode;
  sandbox: SandboxMode;
  /** Caps no job may exceed (absent: the job's own). */
  caps?: RemoteCaps;
  /** Git remotes jobs may name (absent: any the worker's git can reach). */
  remotes?: readonly string[];
}

/** What one job runs with. */
export interface JobGrant {
  permissionMode: PermissionMode;
  sandbox: SandboxMode;
  caps: RemoteCaps;
}

/** Sandboxes from the narrowest to the widest. */
const SANDBOX_ORDER: readonly SandboxMode[] = ['read-only', 'workspace-write', 'off'];

/** The job's grant under the ceiling; throws PayloadRefused when it asks for more. */
export function grantFor(payload: RemoteJobPayload, ceiling: WorkerCeiling): JobGrant {
  const mode = payload.permissionMode ?? ceiling.permissionMode;
  if (narrowerMode(mode, ceiling.permissionMode) !== mode) {
    throw new PayloadRefused(
      `the job asks for permission mode ${mode}, and this worker allows at most ${ceiling.permissionMode}: send it with a narrower mode or to another worker`,
    );
  }
  const sandbox = payload.sandbox ?? ceiling.sandbox;
  if (SANDBOX_ORDER.indexOf(sandbox) > SANDBOX_ORDER.indexOf(ceiling.sandbox)) {
    throw new PayloadRefused(
      `the job asks for sandbox ${sandbox}, and this worker allows at most ${ceiling.sandbox}: send it with a narrower sandbox or to another worker`,
    );
  }
  if (ceiling.remotes && !ceiling.remotes.includes(payload.workspace.remote)) {
    throw new PayloadRefused(
      `the job's git remote ${payload.workspace.remote} is not one this worker fetches from (its --allow-remote list)`,
    );
  }
  return { permissionMode: mode, sandbox, caps: smallerCaps(payload.caps, ceiling.caps ?? {}) };
}

function smallerCaps(job: RemoteCaps, worker: RemoteCaps): RemoteCaps {
  const out: RemoteCaps = {};
  for (const key of ['maxTurns', 'maxTotalTokens', 'maxDurationMs', 'maxTokens', 'maxCostUsd'] as const) {
    const values = [job[key], worker[key]].filter((v): v is number => v !== undefined);
    if (values.length) out[key] = Math.min(...values);
  }
  return out;
}
