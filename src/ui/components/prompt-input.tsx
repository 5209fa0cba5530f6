import { Box, type Key, Text } from 'ink';
import { useKeys } from '../bindings/use-keys.js';
import { type MenuView, menuWindow } from '../bindings/use-prompt-editor.js';
import { oneLine } from '../../core/index.js';
import { cutLine } from '../format.js';
import { type InputLine, inputLines, visibleInputLines } from '../state/input-view.js';
import type { LineState } from '../state/line-editor.js';

export interface PromptInputProps {
  line: LineState;
  /** Every key while the input has them (the editor decides what each does); true: send the input. */
  onKey: (input: string, key: Key) => boolean;
  /** The input is sent: the owner takes the text from its editor. */
  onSubmit: () => void;
  /** The `/` or `@` menu, shown above the input. */
  menu?: MenuView;
  /** False while something else (an approval, a view) has the keys. */
  active: boolean;
  /** A turn is running: Enter queues instead of sending. */
  busy: boolean;
  queued: readonly string[];
  width: number;
  /** Lines the input may take, menu, border and queued prompts included. */
  maxLines?: number;
}

/** The input: a multi-line editor with history and completion menus (see use-prompt-editor.ts). */
export function PromptInput({
  line,
  onKey,
  onSubmit,
  menu,
  active,
  busy,
  queued,
  width,
  maxLines = Number.MAX_SAFE_INTEGER,
}: PromptInputProps) {
  useKeys(
    (input, key) => {
      if (onKey(input, key)) onSubmit();
    },
    { isActive: active },
  );
  const menuLines = menu ? menuHeight(menu) : 0;
  const shownMenu = menu && maxLines - menuLines >= 3 ? menu : undefined;
  const view = promptInputView({ line, queued, width, maxLines: maxLines - (shownMenu ? menuLines : 0) });
  return (
    <Box flexDirection="column">
      {shownMenu ? <CompletionMenu menu={shownMenu} width={width} /> : null}
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

/** Lines the input would take with all the room it wants, its menu included. */
export function promptInputHeight(line: LineState, queued: readonly string[], width: number, menu?: MenuView): number {
  return promptInputView({ line, queued, width }).height + (menu ? menuHeight(menu) : 0);
}

function menuHeight(menu: MenuView): number {
  return menuWindow(menu).items.length;
}

/** The choices, the selected one highlighted; commands with what they do. */
function CompletionMenu({ menu, width }: { menu: MenuView; width: number }) {
  const { items, first } = menuWindow(menu);
  const labelWidth = Math.min(40, Math.max(...items.map((item) => item.label.length)));
  return (
    <Box flexDirection="column" paddingX={1}>
      {items.map((item, i) => {
        const selected = first + i === menu.selected;
        const text = item.detail ? `${item.label.padEnd(labelWidth)}  ${item.detail}` : item.label;
        return (
          <Text
            key={item.label}
            inverse={selected}
            color={selected ? 'cyan' : undefined}
            dimColor={!selected}
            wrap="truncate-end"
          >
            {cutLine(text, width - 2)}
          </Text>
        );
      })}
    </Box>
  );
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
