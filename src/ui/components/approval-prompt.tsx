import { Box, Text } from 'ink';
import { useKeys } from '../bindings/use-keys.js';
import type { ApprovalAnswer } from '../../core/index.js';
import type { PendingApproval } from '../approval-broker.js';
import { cutLine } from '../format.js';
import { type ApprovalView, approvalView } from '../state/approval-view.js';
import { DiffView } from './transcript-entry.js';

export interface ApprovalPromptProps {
  pending: PendingApproval;
  /** The question and its preview (approval-view.ts); worked out from the request when absent. */
  view?: ApprovalView;
  /** How many more requests wait behind this one. */
  more: number;
  onAnswer: (answer: ApprovalAnswer) => void;
  width?: number;
  /** Lines the prompt may take, border included (the preview, then the reason give way). */
  maxLines?: number;
}

/** Border, question and the answer keys: the lines a prompt always takes. */
const FIXED_LINES = 4;

/** Lines the prompt would take with all the room it wants. */
export function approvalHeight(pending: PendingApproval | undefined, view: ApprovalView | undefined): number {
  if (!pending || !view) return 0;
  return FIXED_LINES + (pending.request.reason ? 1 : 0) + view.preview.length;
}

/**
 * Asks the user about one tool call as a question (`Allow the agent to write notes.txt?`): y allows
 * once, a always, n or Esc denies; a denial of the parent's call also ends its turn (App.tsx), so
 * what the user types next tells the model what to do instead.
 */
export function ApprovalPrompt({
  pending,
  view: given,
  more,
  onAnswer,
  width = 80,
  maxLines = Number.MAX_SAFE_INTEGER,
}: ApprovalPromptProps) {
  const view = given ?? approvalView(pending.request);
  useKeys((input, key) => {
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
  const inner = Math.max(1, width - 4);
  const reason = request.reason && maxLines > FIXED_LINES;
  const previewRoom = Math.max(0, maxLines - FIXED_LINES - (reason ? 1 : 0));
  return (
    <Box flexDirection="column" borderStyle="round" borderColor="yellow" paddingX={1}>
      <Text wrap="truncate-end">
        <Text color="yellow" bold>{`Allow ${view.who} to `}</Text>
        {cutLine(`${view.what}?`, Math.max(1, inner - view.who.length - 10))}
      </Text>
      {view.preview.length && previewRoom > 0 ? <DiffView lines={view.preview} width={inner} max={previewRoom} /> : null}
      {reason ? (
        <Text dimColor wrap="truncate-end">
          {request.reason}
        </Text>
      ) : null}
      <Text wrap="truncate-end">
        <Text bold>y</Text> allow once · <Text bold>a</Text> allow always · <Text bold>n</Text>/<Text bold>Esc</Text> deny
        {request.jobId ? '' : ' and stop (then tell it what to do instead)'}
        {more > 0 ? <Text dimColor>{`  (${more} more waiting)`}</Text> : null}
      </Text>
    </Box>
  );
}
