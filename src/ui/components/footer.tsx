import { Box, Text } from 'ink';
import { formatTokens, type Job, type PermissionMode } from '../../core/index.js';
import { cutLine, lineLength } from '../format.js';
import { footerHint } from '../keymap.js';
import { formatCost, statusSegment } from '../state/job-status.js';

export interface FooterProps {
  model: string;
  /** The parent's reasoning effort, shown after the model (`effort high`). */
  effort?: string;
  mode: PermissionMode;
  contextTokens: number;
  /** The model's context window; the footer shows the share used. */
  contextWindow?: number;
  /** Dollars so far, sub-agents included; undefined when the price is unknown. */
  cost?: number;
  jobs: readonly Job[];
  now: number;
  width: number;
  /** Replaces the key hint while a key waits for its second press. */
  message?: string;
  /** A view (/agents) has the keys: its Esc goes back. */
  inView?: boolean;
  /** 1 on a very short terminal: the status line only (or the message, when there is one). */
  lines?: number;
  /** MCP servers up of those configured (`mcp 2/3`); empty without servers. */
  mcp?: string;
}

/** Below this width the status line takes its short form. */
export const NARROW = 80;

/** `ctx 38%` of the window, or the token count when the window is unknown. */
export function contextText(tokens: number, window?: number): string {
  if (!window) return `ctx ${formatTokens(tokens)}`;
  return `ctx ${Math.min(100, Math.round((100 * tokens) / window))}%`;
}

/** The permission mode, in a colour that warns when nothing asks any more. */
function modeColor(mode: PermissionMode): string | undefined {
  return mode === 'yolo' ? 'yellow' : mode === 'accept-edits' ? 'cyan' : mode === 'plan' ? 'blue' : undefined;
}

/** The status line (mode, model, effort, context, cost, sub-agents), then the key hint. */
export function Footer({
  model,
  effort,
  mode,
  contextTokens,
  contextWindow,
  cost,
  jobs,
  now,
  width,
  message,
  mcp,
  inView = false,
  lines = 2,
}: FooterProps) {
  if (lines <= 0) return null;
  if (lines === 1 && message) {
    return (
      <Text color="yellow" wrap="truncate-end">
        {cutLine(message, width)}
      </Text>
    );
  }
  const status = statusSegment(jobs, now);
  const narrow = width < NARROW;
  const price = formatCost(cost);
  const rest = [
    ...(narrow ? [] : [model, ...(effort ? [`effort ${effort}`] : [])]),
    contextText(contextTokens, contextWindow),
    ...(price ? [price] : []),
    ...(narrow ? [status.short] : [status.text]),
    ...(mcp ? [mcp] : []),
  ]
    .filter(Boolean)
    .join(' · ');
  const modeText = mode === 'yolo' ? 'yolo' : mode;
  return (
    <Box flexDirection="column">
      <Text wrap="truncate-end">
        <Text color={modeColor(mode)} bold={mode === 'yolo'} dimColor={mode === 'default'}>
          {modeText}
        </Text>
        <Text dimColor>{cutLine(` · ${rest}`, Math.max(0, width - lineLength(modeText)))}</Text>
      </Text>
      {lines === 1 ? null : message ? (
        <Text color="yellow" wrap="truncate-end">
          {cutLine(message, width)}
        </Text>
      ) : (
        <Text dimColor wrap="truncate-end">
          {cutLine(footerHint(width, inView ? 'view' : 'main'), width)}
        </Text>
      )}
    </Box>
  );
}
