import path from 'node:path';
import type { ResolvedPath } from '../platform/paths.js';
import { namesProcessFiles, processFileReason } from './process-files.js';
import { protectedReason } from './protected-paths.js';
import { isReadOnlyCommand } from './shell-readonly.js';
import type { Decision, PermissionMode, PermissionRequest } from './types.js';
import { oneLine } from '../platform/text.js';

/** Longest command quoted in a reason, so a reason stays one readable line. */
const MAX_QUOTED_COMMAND = 80;

/**
 * The permission policy: what `mode` says about one tool call. Pure — paths arrive resolved
 * (symlinks followed), so the same request always gets the same decision.
 */
export function decide(mode: PermissionMode, request: PermissionRequest): Decision {
  const { toolName, kind, paths } = request;
  // Processes' environments and memory (a key among them): refused in every mode, yolo included.
  const processFile = paths.map(processFileReason).find((reason) => reason !== undefined);
  if (processFile) return deny(`${toolName}: ${processFile}`);
  const outside = paths.find((p) => !p.inside);

  if (kind === 'read-only') {
    // Reading cannot damage anything, and models often need files beyond the project.
    return outside
      ? allow(`${toolName} only reads; reading outside the workspace (${describePath(outside)}) is allowed`)
      : allow(`${toolName} only reads`);
  }

  if (kind === 'agent') {
    // Starting, polling or stopping the session's own sub-agents changes nothing by itself;
    // each child's tools pass this same policy, labelled with its job.
    return allow(`${toolName} drives this session's sub-agents, whose own tools are checked in turn`);
  }

  if (kind === 'network') {
    // A request carries data off the machine (a URL can hold anything the model has read):
    // the user's word in every mode but yolo, plan included.
    return mode === 'yolo'
      ? allow(`${toolName} allowed (yolo)`)
      : ask(`${toolName} sends a request over the network and needs approval (${mode} mode)`);
  }

  if (mode === 'plan') {
    // Plan mode is for looking around: a shell command that only reads is as safe as read_file.
    const command = toolName === 'bash' && !outside ? commandOf(request.args) : undefined;
    if (command !== undefined && isAutoAllowed(command)) return readOnly(command);
    return deny(
      `plan mode: ${toolName} is not allowed; present the plan and let the user switch modes ` +
        `(e.g. --permission-mode default) before changing anything`,
    );
  }

  // Even yolo stays inside the directories the user gave us: a symlink must not widen them.
  if (outside?.loop) {
    return deny(`${toolName}: ${outside.requested} has no real path: its symbolic links form a loop; fix or remove them`);
  }
  if (outside) {
    return deny(
      `${toolName}: ${describePath(outside)} is outside the workspace; ` +
        `rerun with --add-dir ${path.dirname(outside.real)} to allow it`,
    );
  }

  if (mode === 'yolo') return allow(`${toolName} allowed (yolo)`);

  // Config and hooks that make programs run: the user's word every time, even in accept-edits.
  const guarded = paths.map(protectedReason).find((reason) => reason !== undefined);
  if (guarded) return { decision: 'ask', reason: `${toolName}: ${guarded}`, askEveryTime: true };

  if (toolName === 'bash') return decideBash(request.args);

  if (mode === 'accept-edits') {
    // A mutating tool that names no paths gives us nothing to check "inside" against.
    return paths.length > 0
      ? allow(`${toolName} inside the workspace (accept-edits)`)
      : ask(`${toolName} may change things it does not name as paths`);
  }
  return ask(`${toolName} changes files and needs approval (default mode)`);
}

/** bash in default and accept-edits: read-only commands run, anything else is asked. */
function decideBash(args: unknown): Decision {
  const command = commandOf(args);
  if (command === undefined) return ask('bash: the command could not be read');
  const quoted = quoteCommand(command);
  if (namesProcessFiles(command)) return ask(`bash: ${quoted} reads under /proc, where processes' environments are`);
  return isReadOnlyCommand(command) ? readOnly(command) : ask(`bash: ${quoted} may change files`);
}

/** A command that runs without asking: judged read-only, and reading no process's environment. */
const isAutoAllowed = (command: string): boolean => !namesProcessFiles(command) && isReadOnlyCommand(command);

/** The `command` argument of a bash call, when it is a string. */
export function commandOf(args: unknown): string | undefined {
  if (typeof args !== 'object' || args === null) return undefined;
  const command = (args as { command?: unknown }).command;
  return typeof command === 'string' ? command : undefined;
}

function quoteCommand(command: string): string {
  return JSON.stringify(oneLine(command, MAX_QUOTED_COMMAND));
}

/** Names the path as requested and, when a symlink moved it, where it really lands. */
function describePath(p: ResolvedPath): string {
  return p.real === p.absolute ? p.real : `${p.requested} (really ${p.real})`;
}

const allow = (reason: string): Decision => ({ decision: 'allow', reason });
/** A command allowed only because we judged it read-only: one parser mistake must not be a breach. */
const readOnly = (command: string): Decision => ({
  decision: 'allow',
  reason: `bash: ${quoteCommand(command)} only reads`,
  sandbox: 'read-only',
});
const ask = (reason: string): Decision => ({ decision: 'ask', reason });
const deny = (reason: string): Decision => ({ decision: 'deny', reason });
