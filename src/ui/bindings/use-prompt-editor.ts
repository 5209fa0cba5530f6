import type { Key } from 'ink';
import { useCallback, useMemo, useRef, useState } from 'react';
import type { McpServerStatus } from '../../core/index.js';
import { menuCommands, parseSlashCommand } from '../slash-commands.js';
import { mcpPromptMenu } from '../state/mcp-prompt-menu.js';
import { type Completion, MENU_ITEMS, applyCompletion, completionFor } from '../state/completion.js';
import { inputAction } from '../state/input-keys.js';
import type { LineState } from '../state/line-editor.js';
import { PromptHistory, appendHistory, readHistory } from '../state/prompt-history.js';
import { useLineEditor } from './use-line-editor.js';
import { useWorkspaceFiles } from './use-workspace-files.js';

/** The menu as shown: its choices (at most MENU_ITEMS, around the selection) and which is chosen. */
export interface MenuView {
  completion: Completion;
  selected: number;
}

export interface PromptEditor {
  line: LineState;
  /** The open completion menu, if any. */
  menu?: MenuView;
  /** One key (or chunk) from the input; true when it sends the input (the caller then takes it). */
  onKey: (input: string, key: Key) => boolean;
  /** The input as of the last edit, before React re-renders. */
  current: () => LineState;
  set: (text: string) => void;
  /** Ctrl+K: deletes from the cursor to the end of its line. */
  kill: () => void;
  /** Takes the text and empties the input; a prompt sent goes into the history. */
  take: () => string;
}

const NO_MENU = { selected: 0, dismissedFor: undefined as string | undefined };

/**
 * The input editor: the line editor, the history (↑/↓, kept per project in `historyFile`),
 * the `/` and `@` menus and bracketed paste. State that keys of one chunk must see is kept
 * in refs; React state follows for rendering.
 */
export function usePromptEditor(options: {
  historyFile?: string;
  root?: string;
  /** Custom commands (Markdown command files): offered in the `/` menu after the built-in ones. */
  custom?: readonly { name: string; description?: string; argumentHint?: string }[];
  /** The MCP servers as last reported: their prompts are offered in the `/` menu after the custom commands. */
  mcp?: readonly McpServerStatus[];
  /** Text the input starts with, as if typed into it (keys typed during start-up). */
  initialInput?: string;
}): PromptEditor {
  const { historyFile, root, custom, mcp, initialInput } = options;
  const commands = useMemo(() => menuCommands(custom, mcpPromptMenu(mcp ?? [])), [custom, mcp]);
  const editor = useLineEditor(initialInput);
  const [history] = useState(() => new PromptHistory(historyFile ? readHistory(historyFile) : []));
  const [menuState, setMenuState] = useState(NO_MENU);
  const menuRef = useRef(NO_MENU);
  const pasting = useRef(false);
  const wantsFiles = /(^|\s)@\S*$/.test(Array.from(editor.line.text).slice(0, editor.line.cursor).join(''));
  const { files, latest: latestFiles } = useWorkspaceFiles(root, wantsFiles);

  const setMenu = useCallback((next: typeof NO_MENU) => {
    menuRef.current = next;
    setMenuState(next);
  }, []);
  const completionOf = useCallback(
    (line: LineState) => {
      const completion = completionFor(line, { commands, files: latestFiles() });
      return completion && menuRef.current.dismissedFor !== line.text ? completion : undefined;
    },
    [latestFiles, commands],
  );

  const onKey = useCallback(
    (input: string, key: Key): boolean => {
      const line = editor.current();
      const completion = completionOf(line);
      const action = inputAction(input, key, { line, menuOpen: completion !== undefined, pasting: pasting.current });
      const changed = (next: LineState) => {
        if (next.text !== line.text) setMenu({ selected: 0, dismissedFor: menuRef.current.dismissedFor });
      };
      switch (action.type) {
        case 'edit': {
          editor.edit(action.edit);
          changed(editor.current());
          return false;
        }
        case 'insertThenSubmit':
          editor.edit({ type: 'insert', text: action.text });
          return true;
        case 'submit': {
          // Enter on a partly typed command runs the command the menu shows; one that takes
          // input (an MCP prompt's arguments) is put in the input first, unless already typed whole.
          // A built-in typed whole runs, unless another choice was picked: a menu that matches
          // inside names (a prompt `exit-plan` for `/exit`) must not take its place.
          const typedBuiltIn = menuRef.current.selected === 0 && namesBuiltIn(line.text);
          if (completion?.kind === 'command' && !line.text.includes(' ') && !typedBuiltIn) {
            const item = completion.items[Math.min(menuRef.current.selected, completion.items.length - 1)]!;
            const next = applyCompletion(line, completion, item);
            if (item.takesInput && line.text !== item.label) {
              editor.edit({ type: 'set', text: next.text, cursor: next.cursor });
              setMenu({ selected: 0, dismissedFor: undefined });
              return false;
            }
            editor.set(next.text.trimEnd());
          } else if (completion?.kind === 'file') {
            const item = completion.items[Math.min(menuRef.current.selected, completion.items.length - 1)]!;
            editor.set(applyCompletion(line, completion, item).text);
            return false;
          }
          return true;
        }
        case 'history': {
          const text = action.direction === 'older' ? history.older(line.text) : history.newer();
          if (text !== undefined) {
            editor.set(text);
            setMenu({ selected: 0, dismissedFor: text });
          }
          return false;
        }
        case 'menu': {
          if (!completion) return false;
          const count = completion.items.length;
          const selected = menuRef.current.selected;
          if (action.action === 'up') setMenu({ ...menuRef.current, selected: (selected - 1 + count) % count });
          else if (action.action === 'down') setMenu({ ...menuRef.current, selected: (selected + 1) % count });
          else if (action.action === 'dismiss') setMenu({ selected: 0, dismissedFor: line.text });
          else {
            const next = applyCompletion(line, completion, completion.items[Math.min(selected, count - 1)]!);
            editor.edit({ type: 'set', text: next.text, cursor: next.cursor });
            setMenu({ selected: 0, dismissedFor: undefined });
          }
          return false;
        }
        case 'paste':
          pasting.current = action.action === 'start';
          return false;
        case 'none':
          return false;
        default: {
          const unhandled: never = action;
          return unhandled;
        }
      }
    },
    [editor, completionOf, history, setMenu],
  );

  const take = useCallback(() => {
    const text = editor.take();
    setMenu(NO_MENU);
    if (text.trim() && history.add(text) && historyFile) appendHistory(historyFile, text);
    return text;
  }, [editor, history, historyFile, setMenu]);

  const set = useCallback((text: string) => editor.set(text), [editor]);
  const kill = useCallback(() => editor.edit({ type: 'killToEnd' }), [editor]);

  const completion = useMemo(() => {
    const found = completionFor(editor.line, { commands, files });
    return found && menuState.dismissedFor !== editor.line.text ? found : undefined;
  }, [editor.line, files, commands, menuState.dismissedFor]);
  const menu = completion ? { completion, selected: Math.min(menuState.selected, completion.items.length - 1) } : undefined;
  return { line: editor.line, menu, onKey, current: editor.current, set, kill, take };
}

/** The menu's visible window: at most MENU_ITEMS choices, keeping the selected one in view. */
export function menuWindow(menu: MenuView): { items: Completion['items']; first: number } {
  const { items } = menu.completion;
  const first = Math.min(Math.max(0, menu.selected - MENU_ITEMS + 1), Math.max(0, items.length - MENU_ITEMS));
  return { items: items.slice(first, first + MENU_ITEMS), first };
}

/** `/mcp`, `/exit`: the whole line is a built-in command (arguments aside, which a menu never completes). */
function namesBuiltIn(text: string): boolean {
  const command = parseSlashCommand(text);
  return command !== undefined && command.name !== 'unknown';
}
