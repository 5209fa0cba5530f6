import { Box, Text, useInput } from 'ink';
import { oneLine } from '../../core/text.js';
import { cutLine } from '../format.js';
import { type InputLine, inputLines, visibleInputLines } from '../state/input-view.js';
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
  /** Lines the input may take, border and queued prompts included. */
  maxLines?: number;
}

/** A one-line editor: printable keys, Backspace, ←/→, Ctrl+A/Ctrl+E, Enter. */
export function PromptInput({ line, onEdit, onSubmit, active, busy, queued, width, maxLines }: PromptInputProps) {
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

  const view = promptInputView({ line, queued, width, maxLines });
  return (
    <Box flexDirection="column">
      {view.queued.map((text, i) => (
        <Text key={i} dimColor wrap="truncate-end">
          {text}
        </Text>
      ))}
      <Box flexDirection="column" borderStyle="round" borderColor={active ? 'gray' : 'blackBright'} paddingX={1}>
        {view.lines.map((l, i) => (
          <Text key={i} wrap="truncate-end">
            <Text color="cyan">
              {i === 0 && view.above === 0 ? (busy ? '… ' : '› ') : view.above > 0 && i === 0 ? '↑ ' : '  '}
            </Text>
            {cursorLine(l, active)}
          </Text>
        ))}
      </Box>
    </Box>
  );
}

/** Border and padding around the input's text, and its prompt mark. */
const CHROME_CELLS = 6;
/** Queued prompts listed above the input at most; the rest are counted. */
const QUEUED_SHOWN = 2;

/** What the input shows at this width and height: queued lines, then a window of its text. */
export function promptInputView(options: { line: LineState; queued: readonly string[]; width: number; maxLines?: number }) {
  const { line, queued, width } = options;
  const maxLines = options.maxLines ?? Number.MAX_SAFE_INTEGER;
  const queuedLines = queued.slice(0, QUEUED_SHOWN).map((text) => cutLine(`queued: ${oneLine(text)}`, width));
  if (queued.length > QUEUED_SHOWN) queuedLines.push(`+${queued.length - QUEUED_SHOWN} more queued`);
  const all = inputLines(line.text, line.cursor, Math.max(1, width - CHROME_CELLS));
  // The box's border takes two lines; queued lines give way before the text does.
  const textRoom = Math.max(1, maxLines - 2);
  const shownQueued = queuedLines.slice(0, Math.max(0, maxLines - 2 - Math.min(all.length, textRoom)));
  const window = visibleInputLines(all, Math.max(1, textRoom - shownQueued.length));
  return { queued: shownQueued, lines: window.lines, above: window.above, height: shownQueued.length + window.lines.length + 2 };
}

/** Lines the input would take with all the room it wants. */
export function promptInputHeight(line: LineState, queued: readonly string[], width: number): number {
  return promptInputView({ line, queued, width }).height;
}

function cursorLine(line: InputLine, active: boolean) {
  if (line.cursor === undefined) return line.text;
  const chars = Array.from(line.text);
  const before = chars.slice(0, line.cursor).join('');
  const at = chars[line.cursor] ?? ' ';
  const after = chars.slice(line.cursor + 1).join('');
  return (
    <>
      {before}
      {active ? <Text inverse>{at}</Text> : at}
      {after}
    </>
  );
}
