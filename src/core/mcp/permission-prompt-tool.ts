import { claudeToolInput, claudeToolName, fromClaudeToolInput } from '../hooks/claude-tools.js';
import type { PermissionPrompt } from '../permissions/types.js';
import { makeWorkspace } from '../platform/paths.js';
import type { AnyTool } from '../tools/define.js';
import { executeTool } from '../tools/registry.js';

/**
 * `--permission-prompt-tool mcp__server__tool` (Claude Code's flag): each question is a call of
 * that MCP tool with `{ tool_name, input, tool_use_id }` (Claude Code's names and fields), and
 * its text answer is JSON: `{"behavior":"allow","updatedInput":{…}}` or
 * `{"behavior":"deny","message":"…"}`. Anything else, or a tool that is not there, denies.
 */
export function toolPermissionPrompt(options: { name: string; tool: () => AnyTool | undefined; cwd: string }): PermissionPrompt {
  const workspace = makeWorkspace(options.cwd);
  return async (request, signal) => {
    const tool = options.tool();
    if (!tool)
      return { behavior: 'deny', message: `the permission prompt tool ${options.name} is not available (is its MCP server up?)` };
    const input = claudeToolInput(request.toolName, request.args, workspace.root);
    const output = await executeTool(
      tool,
      { tool_name: claudeToolName(request.toolName), input, tool_use_id: request.callId ?? '' },
      { signal, workspace, onUpdate: () => {}, callId: request.callId ?? 'permission-prompt' },
    );
    if (output.isError)
      return { behavior: 'deny', message: `the permission prompt tool ${options.name} failed: ${output.content}` };
    let answer: { behavior?: unknown; updatedInput?: unknown; message?: unknown };
    try {
      answer = JSON.parse(output.content) as typeof answer;
    } catch {
      return { behavior: 'deny', message: `the permission prompt tool ${options.name} did not answer with JSON` };
    }
    if (answer?.behavior === 'allow') {
      const updated = answer.updatedInput;
      return updated && typeof updated === 'object' && !Array.isArray(updated)
        ? { behavior: 'allow', updatedInput: fromClaudeToolInput(request.toolName, updated as Record<string, unknown>, input) }
        : { behavior: 'allow' };
    }
    const message =
      typeof answer?.message === 'string' && answer.message ? answer.message : `${options.name} denied ${request.toolName}`;
    return { behavior: 'deny', message };
  };
}
