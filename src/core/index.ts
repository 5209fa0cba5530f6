// The one face of the core: src/ui and src/cli import from here and nowhere else below
// src/core (eslint.config.js enforces it), so what the front ends rely on is listed in one place.

export { forkStart } from './agents/child-run.js';
export type { AgentColor } from './agents/agent-definition.js';
export { type CommandSummary } from './commands/command-files.js';
export { describeEntry, type McpServerSpec } from './config/mcp-servers.js';
export {
  MCP_SCOPES,
  MCP_SERVER_NAME,
  type McpScope,
  McpScopeError,
  type McpScopeFile,
  addScopeServer,
  checkedMcpEntry,
  describeScopeFile,
  mcpScopeFile,
  readScopeServers,
  removeScopeServer,
} from './config/mcp-scopes.js';
export { outriderPaths } from './config/paths.js';
export { displayValue } from './config/project-trust.js';
export { formatBytes } from './config/read-config-file.js';
export { needsTrustAnswer, recordTrustAnswer, type SettingsReview } from './config/review-settings.js';
export { claudeToolInput, claudeToolName, fromClaudeToolInput } from './hooks/claude-tools.js';
export { hookLine } from './hooks/hook-line.js';
export { hookStopText } from './hooks/stop-text.js';
export { type StatusCommand, type StatusCommands, type StatusOutcome } from './hooks/status-command.js';
export { compareJobIds, kindOf } from './jobs/job-ids.js';
export { isEnded, type Job, JobError, type JobManager, type JobState, type SendResult } from './jobs/job-manager.js';
export { sentText } from './jobs/job-texts.js';
export type { UsageReport, UsageRow } from './jobs/usage-report.js';
export { WakeScheduler } from './jobs/wake-scheduler.js';
export { type LoopResult } from './loop/agent-loop.js';
export { type LoopEvent, type StopCause } from './loop/events.js';
export { limitHint, totalTokens } from './loop/limits.js';
export { type McpPromptCommand, type McpServerState, type McpServerStatus } from './mcp/types.js';
export type { HostedMcpServer } from './mcp/hosted-server.js';
export { toolPermissionPrompt } from './mcp/permission-prompt-tool.js';
export { failureWarning, mcpLoginCommand, serverWarning } from './mcp/warnings.js';
export { openInBrowser } from './mcp/open-browser.js';
export { checkMcpServers } from './mcp/check-servers.js';
export { SIGN_IN_TIMEOUT_MS } from './mcp/oauth-sign-in.js';
export { type SignInTarget, signInByName, signInTarget, signOutByName } from './mcp/server-sign-in.js';
export {
  type ApprovalAnswer,
  type ApprovalRequest,
  type Approver,
  PERMISSION_MODES,
  type PermissionMode,
  type PermissionPrompt,
} from './permissions/types.js';
export { type PermissionDenial } from './permissions/approvals.js';
export { killOwned, terminateOwned } from './platform/process-group.js';
export { safeText } from './platform/safe-text.js';
export { formatDuration, formatSize, formatTokens, oneLine } from './platform/text.js';
export { type Clock, realClock, realTimers, type Timers } from './platform/timers.js';
export {
  ImageError,
  type ImageInput,
  type ImageSummary,
  imageBlocks,
  imageLabel,
  imageSummary,
} from './providers/image-block.js';
export {
  addUsage,
  type ContentBlock,
  emptyUsage,
  type ImageBlock,
  type Message,
  messageText,
  type StopReason,
  type ToolResultBlock,
  type Usage,
  usageTokens,
} from './providers/types.js';
export { estimateTokens, isSummaryMessage } from './session/compaction.js';
export { type EventStream, type SequencedEvent, type SessionEvent } from './session/event-stream.js';
export { type InstructionFileInfo } from './session/instruction-files.js';
export { type JobHistory, readJobHistory } from './session/job-history.js';
export { type StoredJob } from './session/job-store.js';
export { type ListedCommand } from './mcp/prompt-commands.js';
export { sessionCommands } from './session/listed-commands.js';
export { type McpServersHere, mcpServersHere } from './session/mcp-here.js';
export { openSession, reviewSetup } from './session/open-session.js';
export { type OpenedSession, type SessionEndReason, type SessionSetup } from './session/opened-session.js';
export { type CatalogueEntry, type ModelSwitch } from './session/session-model.js';
export { type RewindMode, type RewindOutcome, type RewindPoint, RewindError } from './session/rewind.js';
export { type RewindFace } from './session/session-checkpoints.js';
export { listSessions } from './session/store.js';
export { type CommandRunner, type RunningCommand, type TerminalCommand } from './tools/command-runner.js';
export { unifiedDiff } from './tools/diff.js';
export { type Todo } from './tools/todo-write.js';
export { walkFiles } from './tools/walk-files.js';
export { type WorktreeRecord } from './worktrees/worktree-jobs.js';
export { worktreeCommand } from './worktrees/worktree-tools.js';
export { describeChanges, type WorktreeChanges } from './worktrees/worktree.js';
/** `outrider worker`'s core (BullMQ, ioredis): loaded by that command only (docs/remote.md). */
export const loadRemoteWorker = () => import('./remote/worker-main.js');
export { type EarlierTurnEnd } from './session/turn-ends.js';
