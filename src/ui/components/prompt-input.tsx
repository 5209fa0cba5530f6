import { Box, Text, useInput } from 'ink';
import { cutLine } from '../format.js';
import type { LineEdit, LineState } from '../state/line-editor.js';

export interface PromptInputProps {
  line: LineState;
  onEdit: (edit: LineEdit) => void;
  /** Enter: the owner takes the text from its editor. */
  onSubmit: () => void;
  /** False while something else (an approval, a view) has the keys. */
  active: boolean;
  /** A turn is running: Enter queues instead of sending. */
  busy: boolean;
  queued: readonly string[];
  width: number;
}

/** A one-line editor: printable keys, Backspace, ←/→, Ctrl+A/Ctrl+E, Enter. */
export function PromptInput({ line, onEdit, onSubmit, active, busy, queued, width }: PromptInputProps) {
  useInput(
    (input, key) => {
      if (key.return) return onSubmit();
      if (key.backspace || key.delete) return onEdit({ type: 'backspace' });
      if (key.leftArrow) return onEdit({ type: 'left' });
      if (key.rightArrow) return onEdit({ type: 'right' });
      if (key.home || (key.ctrl && input === 'a')) return onEdit({ type: 'home' });
      if (key.end || (key.ctrl && input === 'e')) return onEdit({ type: 'end' });
      // Other control keys (Ctrl+C, Ctrl+K, Esc, arrows, Tab) belong to someone else.
      if (key.ctrl || key.meta || key.escape || key.tab || key.upArrow || key.downArrow || key.pageUp || key.pageDown) return;
      if (!input) return undefined;
      // Keys typed fast arrive as one chunk: "hello\r" is text then Enter. A multi-line
      // paste keeps its words on the line instead of sending each line as a prompt.
      const typedThenEnter = /^[^\r\n]+\r$/.test(input);
      onEdit({ type: 'insert', text: typedThenEnter ? input.slice(0, -1) : input });
      if (typedThenEnter) onSubmit();
      return undefined;
    },
    { isActive: active },
  );

  const chars = Array.from(line.text);
  const before = chars.slice(0, line.cursor).join('');
  const at = chars[line.cursor] ?? ' ';
  const after = chars.slice(line.cursor + 1).join('');
  return (
    <Box flexDirection="column">
      {queued.map((text, i) => (
        <Text key={i} dimColor>
          {cutLine(`queued: ${text}`, width)}
        </Text>
      ))}
      <Box borderStyle="round" borderColor={active ? 'gray' : 'blackBright'} paddingX={1}>
        <Text>
          <Text color="cyan">{busy ? '… ' : '› '}</Text>
          {before}
          {active ? <Text inverse>{at}</Text> : at}
          {after}
        </Text>
      </Box>
    </Box>
  );
}
