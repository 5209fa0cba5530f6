/**
 * The session's side of the payload: one job, its definition and limits, the commit to work
 * on. Nothing here reads the environment; the caller's secrets (its provider key, every
 * credential-named variable) are searched for in what was built and replaced, in every
 * encoding the scrubber knows, and a git URL travels without its user name and password.
 */
import type { AgentDefinition } from '../agents/agent-definition.js';
import { PROVIDER_KEY_VARIABLES, MIN_SECRET_LENGTH } from '../config/key-variables.js';
import type { ChildRunRequest } from '../jobs/job-types.js';
import type { PermissionMode } from '../permissions/types.js';
import { scrubForms, secretForms } from '../platform/secret-forms.js';
import type { SandboxMode } from '../sandbox/plan.js';
import { PAYLOAD_VERSION, type RemoteCaps, type RemoteJobPayload, type RemoteWorkspace, parsePayload } from './payload.js';

export interface PayloadInput {
  remoteId: string;
  sessionId: string;
  request: Pick<ChildRunRequest, 'id' | 'task' | 'instructions' | 'mode' | 'fork' | 'resume' | 'model' | 'effort'>;
  definition: AgentDefinition;
  workspace: RemoteWorkspace;
  /** The job's own caps; the definition's limits fill the ones left out. */
  caps?: RemoteCaps;
  permissionMode?: PermissionMode;
  sandbox?: SandboxMode;
  labels?: readonly string[];
  /** Values that must not leave the machine, in any encoding: see `secretValues`. */
  secrets?: readonly string[];
}

/** Names that hold a credential by convention (as platform/child-env.ts judges them). */
const CREDENTIAL_NAME = /API_?KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL|PRIVATE_KEY|ACCESS_KEY/i;

/** The secret values of an environment: the provider key variables and every credential-named variable. */
export function secretValues(env: NodeJS.ProcessEnv, extra: readonly string[] = []): string[] {
  const values = [...extra];
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined) continue;
    if (PROVIDER_KEY_VARIABLES.includes(name) || CREDENTIAL_NAME.test(name)) values.push(value.trim());
  }
  return [...new Set(values.filter((value) => value.length >= MIN_SECRET_LENGTH))];
}

/**
 * A git URL without credentials: `https://user:token@host/repo` travels as `https://host/repo`
 * (the worker fetches with its own); ssh's `git@host:repo` keeps its user, which is no secret.
 */
export function publicGitUrl(url: string): string {
  if (!/^[a-z][a-z0-9+.-]*:\/\//i.test(url)) return url;
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return url;
  }
  const http = parsed.protocol === 'http:' || parsed.protocol === 'https:';
  if (parsed.password || (http && parsed.username)) {
    parsed.username = '';
    parsed.password = '';
  }
  return parsed.toString();
}

/** The payload for one job, checked against the schema a worker reads it with. */
export function buildPayload(input: PayloadInput): RemoteJobPayload {
  const { request, definition } = input;
  const caps: RemoteCaps = {
    ...definedOnly({
      maxTurns: definition.maxTurns,
      maxTotalTokens: definition.maxTotalTokens,
      maxDurationMs: definition.maxDurationMs,
    }),
    ...definedOnly(input.caps ?? {}),
  };
  const payload: RemoteJobPayload = {
    version: PAYLOAD_VERSION,
    remoteId: input.remoteId,
    sessionId: input.sessionId,
    jobId: request.id,
    definition: {
      name: definition.name,
      description: definition.description,
      systemPrompt: definition.systemPrompt,
      ...(definition.tools ? { tools: [...definition.tools] } : {}),
      disallowedTools: [...definition.disallowedTools],
      model: definition.model,
      ...(definition.permissions ? { permissions: { ...definition.permissions } } : {}),
    },
    task: request.task,
    ...(request.instructions !== undefined ? { instructions: request.instructions } : {}),
    mode: request.mode,
    ...(request.mode === 'fork' && request.fork ? { fork: request.fork as unknown as RemoteJobPayload['fork'] } : {}),
    ...(request.resume ? { resume: request.resume as unknown as RemoteJobPayload['resume'] } : {}),
    ...(request.model !== undefined ? { model: request.model } : {}),
    ...(request.effort !== undefined ? { effort: request.effort } : {}),
    ...(input.permissionMode ? { permissionMode: input.permissionMode } : {}),
    ...(input.sandbox ? { sandbox: input.sandbox } : {}),
    caps,
    workspace: { ...input.workspace, remote: publicGitUrl(input.workspace.remote) },
    labels: [...(input.labels ?? [])],
  };
  const forms = [...new Set((input.secrets ?? []).flatMap(secretForms))].sort((a, b) => b.length - a.length);
  const text = JSON.stringify(payload);
  const scrubbed = forms.length ? scrubForms(text, forms) : text;
  // Parsed back with the worker's own schema: a payload a worker would refuse is never sent.
  return parsePayload(JSON.parse(scrubbed));
}

function definedOnly<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}
