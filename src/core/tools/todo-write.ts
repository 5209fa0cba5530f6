import * as z from 'zod';
import { defineTool } from './define.js';

/** One step of the model's plan. */
export interface Todo {
  content: string;
  status: 'pending' | 'in_progress' | 'completed';
}

/** Steps one list may hold: a plan, not a backlog. */
export const MAX_TODOS = 50;
const MARK: Record<Todo['status'], string> = { pending: '[ ]', in_progress: '[~]', completed: '[x]' };

/**
 * todo_write: the model's plan for the task at hand, replaced whole on each call. The list
 * lives in the history (it is an ordinary call), so a resumed session and a fork see it;
 * `publish` hands it to the front ends as it changes.
 */
export function todoWriteTool(options: { publish: (todos: Todo[]) => void }) {
  return defineTool({
    name: 'todo_write',
    description:
      'Keep a short plan for a multi-step task: send the whole list each time (it replaces the last). Mark one item ' +
      'in_progress while you work on it and completed as soon as it is done. The user sees it.',
    // For the policy it only reads: nothing outside the session changes, so every mode allows it.
    kind: 'read-only',
    parallel: false,
    schema: z.object({
      todos: z
        .array(
          z.object({
            content: z.string().trim().min(1, 'content must say what the step is').max(500),
            status: z.enum(['pending', 'in_progress', 'completed']),
          }),
        )
        .max(MAX_TODOS, `at most ${MAX_TODOS} items: keep the plan short`),
    }),
    label: (args) => summary(args.todos),
    execute: async (args) => {
      const todos = args.todos.map(({ content, status }) => ({ content, status }));
      options.publish(todos);
      if (todos.length === 0) return 'The todo list is now empty.';
      return `Todo list updated (${summary(todos)}):\n${todos.map((t) => `${MARK[t.status]} ${t.content}`).join('\n')}`;
    },
  });
}

/** `2/5 done`, for labels and the result's first line. */
function summary(todos: readonly Todo[]): string {
  return `${todos.filter((t) => t.status === 'completed').length}/${todos.length} done`;
}
