import * as z from 'zod';
import { type AnyTool, type ToolOutput, defineTool } from '../tools/define.js';
import { type AgentSummary, catalogueText, findAgents } from './catalogue.js';
import type { FanOutApproval } from './fan-out-approval.js';
import { JobError, type JobManager } from '../jobs/job-manager.js';
import { sentText } from '../jobs/job-texts.js';
import { capsText } from '../jobs/budget-texts.js';
import type { JobBudget } from '../jobs/job-types.js';

export type { AgentSummary } from './catalogue.js';

/** Most agents one agent_list call returns with their whole descriptions. */
const LIST_LIMIT = 25;

const idSchema = z.object({ id: z.string().describe('job id: sub-3 (or 3), sub-2.1, or a background shell sh-1') });

/** The tools the parent model drives sub-agents with. */
export function agentTools(
  manager: JobManager,
  agents: AgentSummary[],
  defaultAgent = 'explore',
  options: {
    /** Asks the user before the parent starts more sub-agents in one turn than `agents.approve` allows. */
    fanOut?: FanOutApproval;
    /** The session has a budget: what is left of it, for each start's result. */
    sessionBudget?: () => string | undefined;
  } = {},
): AnyTool[] {
  const catalogue = catalogueText(agents, defaultAgent);
  const start = defineTool({
    name: 'agent_start',
    description:
      'Start a sub-agent in the background on one focused task; returns its id at once. It has NO memory of this ' +
      'conversation: put everything it needs in task (paths, names, facts, what to report). It is read-only unless ' +
      'its agent allows edits. Its final message is its entire return value. Keep working while it runs; you are ' +
      'told when it completes, then call agent_poll. Several starts in one response run in parallel. ' +
      "max_* caps (its sub-agents included) only lower its agent's; at one it fails with what it has. " +
      (options.sessionBudget ? 'This session has a budget: each start says what is left of it. ' : '') +
      catalogue,
    kind: 'agent',
    parallel: true,
    schema: z.object({
      task: z.string().trim().min(1, 'task must say what to investigate'),
      instructions: z.string().optional(),
      agent: z.string().optional(),
      mode: z.enum(['typed', 'fork']).optional().describe('fork: inherit this conversation (cache reuse)'),
      max_tokens: z.number().int().min(1).optional(),
      max_cost_usd: z.number().positive().optional(),
      max_turns: z.number().int().min(1).optional(),
      max_tool_calls: z.number().int().min(1).optional(),
      max_duration_s: z.number().int().min(1).optional(),
      // The model fields together; isolation's after them.
      model: z.string().optional().describe('inherit (default), sonnet, opus, haiku, or a model id of this provider'),
      // Isolation.
      isolation: z
        .enum(['worktree'])
        .optional()
        .describe('worktree: it edits its own git worktree; agent_merge applies its changes to the checkout'),
      // The queue.
      where: z.enum(['local']).optional().describe('local: run it on this machine even when jobs go to workers'),
      // Dependencies.
      after: z.array(z.string()).optional().describe('ids to wait for; their reports join its task'),
    }),
    label: (args) => args.task,
    execute: async (args, ctx) => {
      // Only the parent's own starts count towards a turn's fan-out (a sub-agent's are bounded by its depth).
      const fanOut = ctx.jobId ? undefined : options.fanOut;
      const refusal = await fanOut?.admit(ctx.signal);
      if (refusal) return { content: refusal, isError: true };
      const output = guard(() => {
        const job = manager.start(args.task, {
          instructions: args.instructions,
          agent: args.agent,
          mode: args.mode,
          callId: ctx.callId,
          ...(ctx.jobId ? { owner: ctx.jobId } : {}),
          ...(args.model !== undefined ? { model: args.model } : {}),
          ...(args.isolation ? { isolation: args.isolation } : {}),
          ...(args.where ? { where: args.where } : {}),
          ...(args.after?.length ? { after: args.after } : {}),
          ...askedCaps(args),
        });
        const note = job.modelRefused ? ` Note: ${job.modelRefused}.` : '';
        const waits = job.waitingFor?.length ? `, waiting for ${job.waitingFor.join(', ')}` : '';
        const caps = job.budget ? ` Caps: ${capsText(job.budget)}.` : '';
        const left = options.sessionBudget?.();
        return `Sub-agent ${job.id} started (${job.state}${waits}). Call agent_poll with id ${job.id} to retrieve its summary.${caps}${left ? ` ${left}` : ''}${note}`;
      });
      if (output.isError) fanOut?.release();
      return output;
    },
  });

  const poll = defineTool({
    name: 'agent_poll',
    description:
      "Get a sub-agent's result. Waits until it ends (or a timeout, then reports progress). Call it when you need " +
      'the result or after a completion notice. For a background shell (sh-N): its output since the last poll, and its exit code once it ended.',
    kind: 'agent',
    parallel: true,
    schema: idSchema,
    label: (args) => args.id,
    execute: async (args, ctx) => guardAsync(async () => manager.describePoll(await manager.poll(args.id, ctx.signal))),
  });

  const stop = defineTool({
    name: 'agent_stop',
    description: 'Stop a queued or running sub-agent (with the jobs it started) or a background shell by id.',
    kind: 'agent',
    parallel: true,
    schema: idSchema,
    label: (args) => args.id,
    execute: async (args) =>
      guard(() => {
        const waiting = manager.dependencies.dependantsOf(args.id);
        const job = manager.stop(args.id);
        const also = waiting.length
          ? ` ${waiting.join(', ')}, which waited for it, ${waiting.length === 1 ? 'was' : 'were'} stopped too.`
          : '';
        return `Stopped ${job.id}.${also}`;
      }),
  });
  const send = defineTool({
    name: 'agent_send',
    description:
      'Send a message to a sub-agent by id. A running one reads it at its next step (never mid-call); a queued one gets it ' +
      'added to its task; one that ended (done, failed or stopped) resumes with its whole history plus your message, keeps ' +
      'its id, and is announced again when it completes. Use it to steer, correct, or ask a follow-up without a new sub-agent. ' +
      'To a background shell (sh-N) the message is written to its stdin, followed by a newline.',
    kind: 'agent',
    parallel: true,
    schema: z.object({
      id: z.string().describe('sub-agent id, e.g. sub-3 (or 3), or a background shell, e.g. sh-1'),
      // Not trimmed: a shell gets it as written (a sub-agent's is trimmed by the manager).
      message: z.string().refine((text) => text.trim().length > 0, 'message must say something'),
    }),
    label: (args) => args.id,
    execute: async (args) =>
      guard(() => {
        return sentText(manager.send(args.id, args.message, 'parent'));
      }),
  });
  const list = defineTool({
    name: 'agent_list',
    description:
      'List the agents agent_start can run, with their whole descriptions; a query keeps those whose name or description holds every word of it.',
    kind: 'read-only',
    schema: z.object({ query: z.string().optional().describe('words to look for, e.g. "security review"') }),
    label: (args) => args.query ?? '',
    execute: async (args) => {
      const found = findAgents(agents, args.query);
      if (found.length === 0) {
        return `No agent matches "${args.query ?? ''}". ${agents.length} agents exist; call agent_list without a query to see them.`;
      }
      const shown = found
        .slice(0, LIST_LIMIT)
        .map((a) => `${a.name}${a.name === defaultAgent ? ' (default)' : ''}: ${a.description.trim()}`);
      const more = found.length > LIST_LIMIT ? `\n…and ${found.length - LIST_LIMIT} more: narrow the query.` : '';
      return `${shown.join('\n\n')}${more}`;
    },
  });
  return [start, poll, stop, send, list];
}

/** agent_start's caps, as the manager takes them (undefined: none asked for). */
function askedCaps(args: {
  max_tokens?: number;
  max_cost_usd?: number;
  max_turns?: number;
  max_tool_calls?: number;
  max_duration_s?: number;
}): { budget?: JobBudget } {
  const budget: JobBudget = {
    ...(args.max_tokens !== undefined ? { maxTokens: args.max_tokens } : {}),
    ...(args.max_cost_usd !== undefined ? { maxCostUsd: args.max_cost_usd } : {}),
    ...(args.max_turns !== undefined ? { maxTurns: args.max_turns } : {}),
    ...(args.max_tool_calls !== undefined ? { maxToolCalls: args.max_tool_calls } : {}),
    ...(args.max_duration_s !== undefined ? { maxDurationMs: args.max_duration_s * 1000 } : {}),
  };
  return Object.keys(budget).length ? { budget } : {};
}

/** Turns the manager's JobErrors into error results; anything else is a real failure. */
function guard(fn: () => string): ToolOutput {
  try {
    return { content: fn() };
  } catch (error) {
    if (error instanceof JobError) return { content: error.message, isError: true };
    throw error;
  }
}

async function guardAsync(fn: () => Promise<ToolOutput>): Promise<ToolOutput> {
  try {
    return await fn();
  } catch (error) {
    if (error instanceof JobError) return { content: error.message, isError: true };
    throw error;
  }
}
