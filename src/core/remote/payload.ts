/**
 * What travels from a session to a worker for one sub-agent job, and the zod schema a worker
 * reads it with. It holds the work and its limits, never a credential: the worker runs the job
 * with its own provider key, its own permission mode and sandbox as the ceiling, and fetches
 * the code from a shared git remote with its own git credentials.
 */
import * as z from 'zod';
import type { AgentDefinition } from '../agents/agent-definition.js';
import { describeValue, formatKeyPath, valueAt } from '../config/zod-issues.js';
import { PERMISSION_MODES, type PermissionMode } from '../permissions/types.js';
import { EFFORT_LEVELS, type Effort, type Message } from '../providers/types.js';
import { SANDBOX_MODES, type SandboxMode } from '../sandbox/plan.js';
import { PayloadRefused } from './remote-errors.js';

/** The payload version this build writes and reads; a worker refuses any other. */
export const PAYLOAD_VERSION = 1;

const text = (max: number) => z.string().max(max, { message: `text of at most ${max} characters` });
const name = z
  .string()
  .regex(/^[A-Za-z0-9][A-Za-z0-9_.:-]{0,127}$/, { message: 'a name of letters, digits, "_", ".", ":", "-"' });
const count = z.number().int().positive({ message: 'a whole number above 0' });

/** A history message as it travels; the child's loop checks blocks again before any request. */
const messageSchema = z.object({
  role: z.enum(['user', 'assistant']),
  content: z.array(z.looseObject({ type: z.string() })).max(10_000),
});

const definitionSchema = z.object({
  name,
  description: text(10_000),
  systemPrompt: text(500_000),
  tools: z.array(text(200)).max(500).optional(),
  disallowedTools: z.array(text(200)).max(500),
  model: text(200),
  permissions: z
    .object({ mode: z.enum(PERMISSION_MODES as [PermissionMode, ...PermissionMode[]]), ask: z.boolean(), asWritten: text(100) })
    .optional(),
});

const capsSchema = z.object({
  maxTurns: count.optional(),
  maxTotalTokens: count.optional(),
  maxDurationMs: count.optional(),
  /** The job's budget in tokens, input and output together (JobBudget.maxTokens). */
  maxTokens: count.optional(),
  maxCostUsd: z.number().positive({ message: 'an amount above 0' }).optional(),
});

/** Where the code is: a commit on a git remote the worker can fetch, and the ref the session pushed it under. */
const workspaceSchema = z.object({
  remote: text(2000).refine((url) => !/^[a-z][a-z0-9+.-]*::/i.test(url), { message: 'a git URL (no transport helpers)' }),
  commit: z.string().regex(/^[0-9a-f]{40}([0-9a-f]{24})?$/, { message: 'a full commit id' }),
  ref: z
    .string()
    .regex(/^refs\/[A-Za-z0-9_./-]{1,200}$/, { message: 'a ref under refs/' })
    .optional(),
});

export const payloadSchema = z.object({
  version: z.literal(PAYLOAD_VERSION),
  /** The job's id in the queue: session, job and run (queue-names.ts). */
  remoteId: z.string().regex(/^[A-Za-z0-9_.-]{1,200}$/),
  sessionId: name,
  jobId: name,
  definition: definitionSchema,
  task: text(1_000_000).min(1, { message: 'a non-empty task' }),
  instructions: text(1_000_000).optional(),
  mode: z.enum(['typed', 'fork']),
  /** Fork mode: the parent's exact request prefix. */
  fork: z
    .object({
      system: text(2_000_000),
      schemas: z.array(z.looseObject({ name: z.string() })).max(1000),
      messages: z.array(messageSchema),
    })
    .optional(),
  /** A resumed job: its history so far, the new message last. */
  resume: z.array(messageSchema).optional(),
  model: text(200).optional(),
  /** The job's reasoning effort as the session resolved it (its definition's, else the session's); sent where the worker's model takes one. */
  effort: z.enum(EFFORT_LEVELS as [Effort, ...Effort[]], { message: `one of ${EFFORT_LEVELS.join(', ')}` }).optional(),
  /** What the session asks for; the worker's own settings are the ceiling (ceiling.ts). */
  permissionMode: z.enum(PERMISSION_MODES as [PermissionMode, ...PermissionMode[]]).optional(),
  sandbox: z.enum(SANDBOX_MODES as [SandboxMode, ...SandboxMode[]]).optional(),
  caps: capsSchema,
  workspace: workspaceSchema,
  labels: z.array(name).max(8),
});

/** One job as it travels to a worker. */
export type RemoteJobPayload = z.infer<typeof payloadSchema>;
export type RemoteCaps = z.infer<typeof capsSchema>;
export type RemoteWorkspace = z.infer<typeof workspaceSchema>;

/** Reads a job's data as a payload; throws PayloadRefused naming the field (or the version) that is wrong. */
export function parsePayload(data: unknown): RemoteJobPayload {
  if (data === null || typeof data !== 'object') throw new PayloadRefused('the job carries no payload object');
  const version = (data as { version?: unknown }).version;
  if (version !== PAYLOAD_VERSION) {
    throw new PayloadRefused(
      typeof version === 'number'
        ? `payload version ${version} is not one this worker reads (it reads version ${PAYLOAD_VERSION}): run the same outrider version on the session and the worker`
        : `the payload has no version: it was not sent by outrider`,
    );
  }
  const parsed = payloadSchema.safeParse(data);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const where = formatKeyPath(issue.path) || 'the payload';
    throw new PayloadRefused(`invalid payload: ${where}: ${issue.message} (got ${describeValue(valueAt(data, issue.path))})`);
  }
  return parsed.data;
}

/** The payload's definition as the child runner takes it; its limits travel as the caps. */
export function definitionOf(payload: RemoteJobPayload): AgentDefinition {
  const { definition } = payload;
  return {
    name: definition.name,
    description: definition.description,
    systemPrompt: definition.systemPrompt,
    ...(definition.tools ? { tools: definition.tools } : {}),
    disallowedTools: definition.disallowedTools,
    model: definition.model,
    ...(definition.permissions ? { permissions: definition.permissions } : {}),
    // The session sent it: to the worker it is as untrusted as a repository's file.
    source: 'project',
    fromRepository: true,
  };
}

/** The payload's messages as history (their blocks are checked again by the loop before any request). */
export function messagesOf(messages: readonly z.infer<typeof messageSchema>[] | undefined): Message[] | undefined {
  return messages as Message[] | undefined;
}
