import { Box, Text } from 'ink';
import { oneLine, type Todo } from '../../core/index.js';
import { cutLine } from '../format.js';

export interface TodoListProps {
  todos: readonly Todo[];
  width: number;
  /** Items shown at most; the window follows the first step not yet done. */
  max?: number;
}

/** C0 and C1 control characters (escape included): never written to the terminal as they are. */
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/g;

const MARK: Record<Todo['status'], string> = { pending: '☐', in_progress: '▸', completed: '☑' };

/** Which items fit: up to `max`, starting one before the first unfinished step. */
export function todoWindow(todos: readonly Todo[], max: number): { shown: Todo[]; before: number; after: number } {
  if (todos.length <= max) return { shown: [...todos], before: 0, after: 0 };
  const current = Math.max(
    0,
    todos.findIndex((t) => t.status !== 'completed'),
  );
  const start = Math.max(0, Math.min(current - 1, todos.length - max));
  return { shown: todos.slice(start, start + max), before: start, after: todos.length - start - max };
}

/** Lines the list takes with at most `max` items shown (0 when it is hidden). */
export function todoListHeight(todos: readonly Todo[], max = 6): number {
  if (todos.length === 0 || todos.every((t) => t.status === 'completed')) return 0;
  return 1 + Math.min(todos.length, max) + (todos.length > max ? 1 : 0);
}

/** The most items that fit in `lines` (header and "… more" line included); 0 when none fit. */
export function todoItemsFitting(todos: readonly Todo[], lines: number, max = 6): number {
  if (lines >= todoListHeight(todos, max)) return max;
  return Math.max(0, lines - 2);
}

/** The model's plan (todo_write) as a short checklist above the input; gone once every step is done. */
export function TodoList({ todos, width, max = 6 }: TodoListProps) {
  if (max < 1 || todoListHeight(todos, max) === 0) return null;
  const { shown, before, after } = todoWindow(todos, max);
  const done = todos.filter((t) => t.status === 'completed').length;
  return (
    <Box flexDirection="column">
      <Text dimColor wrap="truncate-end">
        {cutLine(`plan ${done}/${todos.length}${before ? ` · ${before} earlier` : ''}`, width)}
      </Text>
      {shown.map((todo, i) => {
        // The model wrote this text: no control characters reach the terminal.
        const text = cutLine(`${MARK[todo.status]} ${oneLine(todo.content.replace(CONTROL, ' '))}`, width);
        return (
          <Text
            key={`${before + i}`}
            wrap="truncate-end"
            bold={todo.status === 'in_progress'}
            dimColor={todo.status === 'completed'}
            strikethrough={todo.status === 'completed'}
          >
            {text}
          </Text>
        );
      })}
      {after ? <Text dimColor>{cutLine(`… ${after} more`, width)}</Text> : null}
    </Box>
  );
}
