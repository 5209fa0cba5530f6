import { Box, Text } from 'ink';
import type { Job } from '../../core/agents/job-manager.js';
import { formatTokens } from '../../core/text.js';
import { cutLine } from '../format.js';
import { footerHint } from '../keymap.js';
import { statusSegment } from '../state/job-status.js';

export interface FooterProps {
  model: string;
  contextTokens: number;
  jobs: readonly Job[];
  now: number;
  width: number;
  /** Replaces the key hint while a key waits for its second press. */
  message?: string;
  /** MCP servers up of those configured (`mcp 2/3`); empty without servers. */
  mcp?: string;
}

/** Below this width the status segment takes its short form. */
export const NARROW = 80;

/** Model, context and the sub-agent status segment; then the key hint. */
export function Footer({ model, contextTokens, jobs, now, width, message, mcp }: FooterProps) {
  const status = statusSegment(jobs, now);
  const segment = width < NARROW ? status.short : status.text;
  const parts = [model, `ctx ${formatTokens(contextTokens)}`, ...(segment ? [segment] : []), ...(mcp ? [mcp] : [])];
  return (
    <Box flexDirection="column">
      <Text dimColor wrap="truncate-end">
        {cutLine(parts.join(' · '), width)}
      </Text>
      {message ? (
        <Text color="yellow" wrap="truncate-end">
          {cutLine(message, width)}
        </Text>
      ) : (
        <Text dimColor wrap="truncate-end">
          {cutLine(footerHint(width), width)}
        </Text>
      )}
    </Box>
  );
}
