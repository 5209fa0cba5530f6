import { Box, Text, useInput } from 'ink';
import type { PendingApproval } from '../approval-broker.js';
import type { ApprovalAnswer } from '../../core/permissions/types.js';

export interface ApprovalPromptProps {
  pending: PendingApproval;
  /** How many more requests wait behind this one. */
  more: number;
  onAnswer: (answer: ApprovalAnswer) => void;
}

/** Asks the user about one tool call: y allows once, a always, n or Esc denies. */
export function ApprovalPrompt({ pending, more, onAnswer }: ApprovalPromptProps) {
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
      <Text>
        <Text color="yellow" bold>{`${who}: `}</Text>
        {`run ${request.toolName}${request.label ? ` ${request.label}` : ''}?`}
      </Text>
      {request.reason ? <Text dimColor>{request.reason}</Text> : null}
      <Text>
        <Text bold>y</Text> allow once · <Text bold>a</Text> allow always · <Text bold>n</Text>/<Text bold>Esc</Text> deny
        {more > 0 ? <Text dimColor>{`  (${more} more waiting)`}</Text> : null}
      </Text>
    </Box>
  );
}
