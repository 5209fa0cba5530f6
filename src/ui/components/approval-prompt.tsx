import { Box, Text, useInput } from 'ink';
import type { PendingApproval } from '../approval-broker.js';
import type { ApprovalAnswer } from '../../core/permissions/types.js';

export interface ApprovalPromptProps {
  pending: PendingApproval;
  /** How many more requests wait behind this one. */
  more: number;
  onAnswer: (answer: ApprovalAnswer) => void;
  /** Lines the prompt may take, border included (the reason gives way first). */
  maxLines?: number;
}

/** Border, question and the answer keys: the lines a prompt always takes. */
const FIXED_LINES = 4;

/** Lines the prompt would take with all the room it wants. */
export function approvalHeight(pending: PendingApproval | undefined): number {
  if (!pending) return 0;
  return FIXED_LINES + (pending.request.reason ? 1 : 0);
}

/** Asks the user about one tool call: y allows once, a always, n or Esc denies. */
export function ApprovalPrompt({ pending, more, onAnswer, maxLines = Number.MAX_SAFE_INTEGER }: ApprovalPromptProps) {
  useInput((input, key) => {
    if (key.escape) return onAnswer('deny');
    switch (input.toLowerCase()) {
      case 'y':
        return onAnswer('allow');
      case 'a':
        return onAnswer('allow-always');
      case 'n':
        return onAnswer('deny');
      default:
        return undefined;
    }
  });
  const { request } = pending;
  const who = request.jobId ? `${request.jobId} asks` : 'The agent asks';
  return (
    <Box flexDirection="column" borderStyle="round" borderColor="yellow" paddingX={1}>
      <Text wrap="truncate-end">
        <Text color="yellow" bold>{`${who}: `}</Text>
        {`run ${request.toolName}${request.label ? ` ${request.label}` : ''}?`}
      </Text>
      {request.reason && maxLines > FIXED_LINES ? (
        <Text dimColor wrap="truncate-end">
          {request.reason}
        </Text>
      ) : null}
      <Text wrap="truncate-end">
        <Text bold>y</Text> allow once · <Text bold>a</Text> allow always · <Text bold>n</Text>/<Text bold>Esc</Text> deny
        {more > 0 ? <Text dimColor>{`  (${more} more waiting)`}</Text> : null}
      </Text>
    </Box>
  );
}
