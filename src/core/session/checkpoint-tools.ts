import type { AnyTool } from '../tools/define.js';
import { resolveWritablePath } from '../tools/workspace-guard.js';
import type { Capture, FileCheckpoints } from './file-checkpoints.js';

/**
 * The tools whose edits are checkpointed: the ones that write files at paths they name. A bash
 * command's writes are not tracked (nothing says which files it touches), nor are worktree merges
 * (an isolated job's edits, applied whole) or an MCP server's tools, as Claude Code tracks only its own edits.
 */
export const CHECKPOINTED_TOOLS: ReadonlySet<string> = new Set(['write_file', 'edit_file']);

/**
 * `tools` with each checkpointed one recording, around each call, what the files it names held
 * before (once per prompt) and after. Calls made in another workspace (an isolated job's
 * worktree) are left alone; a sub-agent's calls in the parent's checkout are recorded like the
 * parent's, filed under the prompt during which they happen.
 */
export function withCheckpoints(tools: readonly AnyTool[], checkpoints: FileCheckpoints): AnyTool[] {
  return tools.map((tool) => (CHECKPOINTED_TOOLS.has(tool.name) ? checkpointed(tool, checkpoints) : tool));
}

function checkpointed(tool: AnyTool, checkpoints: FileCheckpoints): AnyTool {
  return {
    ...tool,
    async execute(args, ctx) {
      const captures: Capture[] = [];
      if (checkpoints.covers(ctx.workspace)) {
        for (const requested of tool.paths?.(args) ?? []) {
          // Where the tool will write: its real path, judged as the tool judges it. A path it refuses is not recorded.
          const target = resolveWritablePath(ctx.workspace, requested);
          if (!target.ok) continue;
          const capture = await checkpoints.capture(target.path.real, ctx.signal);
          if (capture) captures.push(capture);
        }
      }
      try {
        return await tool.execute(args, ctx);
      } finally {
        for (const capture of captures) await checkpoints.settle(capture);
      }
    },
  };
}
