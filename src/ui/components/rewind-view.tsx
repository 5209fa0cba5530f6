import { Box, Text } from 'ink';
import { useRef, useState } from 'react';
import { oneLine, type RewindMode, type RewindPoint, safeText } from '../../core/index.js';
import { useKeys } from '../bindings/use-keys.js';
import { cutLine, plural } from '../format.js';
import { UNTRACKED_NOTE } from '../state/rewind-lines.js';

/** Claude Code's four choices once a prompt is picked; "never mind" closes the view. */
export const REWIND_CHOICES: readonly { label: string; mode?: RewindMode }[] = [
  { label: 'Restore code and conversation', mode: 'code-and-conversation' },
  { label: 'Restore conversation', mode: 'conversation' },
  { label: 'Restore code', mode: 'code' },
  { label: 'Never mind' },
];

export interface RewindViewProps {
  /** The earlier prompts, oldest first. */
  points: readonly RewindPoint[];
  width: number;
  active: boolean;
  /** Lines the view may take, border included: past it, a window of prompts around the selection. */
  maxLines?: number;
  onChoose: (index: number, mode: RewindMode) => void;
  onClose: () => void;
}

/**
 * /rewind: the earlier prompts, newest last and chosen first (↑/↓, Enter; Esc closes), then what to
 * put back (↑/↓, Enter; Esc goes back to the prompts).
 */
export function RewindView({ points, width, active, maxLines = Number.MAX_SAFE_INTEGER, onChoose, onClose }: RewindViewProps) {
  const last = points.length - 1;
  const [state, setState] = useState({ selected: last, choosing: false, choice: 0 });
  // Keys of one chunk ("↑⏎") reach the handler of one render: each must see the key before it.
  const latest = useRef(state);
  const update = (next: Partial<typeof state>) => {
    latest.current = { ...latest.current, ...next };
    setState(latest.current);
  };

  useKeys(
    (_input, key) => {
      const { selected, choosing, choice } = latest.current;
      if (!choosing) {
        if (key.escape) return onClose();
        if (key.upArrow) return update({ selected: Math.max(0, selected - 1) });
        if (key.downArrow) return update({ selected: Math.min(last, selected + 1) });
        if (key.return) return update({ choosing: true, choice: 0 });
        return undefined;
      }
      if (key.escape) return update({ choosing: false });
      if (key.upArrow) return update({ choice: Math.max(0, choice - 1) });
      if (key.downArrow) return update({ choice: Math.min(REWIND_CHOICES.length - 1, choice + 1) });
      if (!key.return) return undefined;
      const { mode } = REWIND_CHOICES[choice]!;
      return mode ? onChoose(points[selected]!.index, mode) : onClose();
    },
    { isActive: active },
  );

  const inner = Math.max(10, width - 4);
  const line = (text: string) => cutLine(safeText(text), inner);
  const point = points[Math.min(state.selected, last)]!;
  if (state.choosing) {
    const files = point.files.length
      ? `${plural(point.files.length, 'file')} the agent changed since then: ${point.files.join(', ')}`
      : 'No file edits by the agent were recorded since then.';
    return (
      <Box flexDirection="column" borderStyle="round" paddingX={1}>
        <Text bold wrap="truncate-end">
          {line(`Rewind to before "${oneLine(point.text, inner)}"`)}
        </Text>
        <Text wrap="truncate-end">{line(files)}</Text>
        {REWIND_CHOICES.map((choice, i) => (
          <Text key={choice.label} color={i === state.choice ? 'cyan' : undefined} wrap="truncate-end">
            {`${i === state.choice ? '›' : ' '} ${choice.label}`}
          </Text>
        ))}
        <Text dimColor wrap="wrap">
          {UNTRACKED_NOTE}
        </Text>
      </Box>
    );
  }
  // Border and title take three lines, the hint one: the rest is a window of prompts around the selection.
  const room = Math.max(1, maxLines - 4);
  const first = Math.min(Math.max(0, state.selected - room + 1), Math.max(0, points.length - room));
  return (
    <Box flexDirection="column" borderStyle="round" paddingX={1}>
      <Text bold>Rewind: go back to before which prompt?</Text>
      {points.slice(first, first + room).map((p, i) => {
        const chosen = first + i === state.selected;
        const changed = p.files.length ? ` · ${plural(p.files.length, 'file')} changed since` : '';
        return (
          <Text key={p.index} color={chosen ? 'cyan' : undefined} wrap="truncate-end">
            {line(`${chosen ? '›' : ' '} ${oneLine(p.text, inner)}${changed}`)}
          </Text>
        );
      })}
      <Text dimColor wrap="truncate-end">
        {line('↑/↓ choose · Enter picks · Esc closes')}
      </Text>
    </Box>
  );
}
