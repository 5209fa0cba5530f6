import { describe, expect, it } from 'vitest';
import type { Todo } from '../../../src/core/tools/todo-write.js';
import { TodoList, todoItemsFitting, todoListHeight, todoWindow } from '../../../src/ui/components/todo-list.js';
import { type UiItem, initialUiState, reduceBatch } from '../../../src/ui/state/ui-store.js';
import { frame, mount } from '../harness.js';

const todo = (content: string, status: Todo['status']): Todo => ({ content, status });

describe('TodoList', () => {
  it('shows the plan as a checklist, the current step marked', async () => {
    const todos = [todo('Read the loader', 'completed'), todo('Add the key', 'in_progress'), todo('Run the tests', 'pending')];
    const rendered = await mount(<TodoList todos={todos} width={80} />);
    expect(frame(rendered)).toBe('plan 1/3\n☑ Read the loader\n▸ Add the key\n☐ Run the tests');
  });

  it('shows nothing without a plan, or once every step is done', async () => {
    expect(frame(await mount(<TodoList todos={[]} width={80} />))).toBe('');
    expect(frame(await mount(<TodoList todos={[todo('a', 'completed')]} width={80} />))).toBe('');
  });

  it('keeps a long plan short, around the first unfinished step', async () => {
    const todos = Array.from({ length: 10 }, (_, i) => todo(`step ${i + 1}`, i < 5 ? 'completed' : 'pending'));
    expect(todoWindow(todos, 4)).toMatchObject({ before: 4, after: 2 });
    const rendered = await mount(<TodoList todos={todos} width={80} max={4} />);
    expect(frame(rendered)).toBe('plan 5/10 · 4 earlier\n☑ step 5\n☐ step 6\n☐ step 7\n☐ step 8\n… 2 more');
  });

  it('cuts each line to the width and keeps control characters off the terminal', async () => {
    const todos = [todo(`evil \u001b[2J\nsecond line ${'x'.repeat(100)}`, 'pending')];
    const lines = frame(await mount(<TodoList todos={todos} width={30} />)).split('\n');
    expect(lines[1]).toBe('☐ evil [2J second line xxxxxx…');
    expect(lines.every((line) => Array.from(line).length <= 30)).toBe(true);
  });

  it('follows the todos events into the UI state', () => {
    const start = initialUiState({ intro: [], storedJobs: [], wakeOnComplete: false });
    const items = (todos: Todo[], seq: number): UiItem[] => [{ kind: 'event', item: { seq, event: { type: 'todos', todos } } }];
    const first = reduceBatch(start, items([todo('a', 'pending')], 1));
    expect(first.todos).toEqual([todo('a', 'pending')]);
    expect(reduceBatch(first, items([], 2)).todos).toEqual([]);
  });
});

describe('the checklist in the live area', () => {
  const plan = Array.from({ length: 9 }, (_, i) => ({ content: `step ${i}`, status: 'pending' as const }));
  it('asks for its header, six items and a "more" line, and nothing once every step is done', () => {
    expect(todoListHeight(plan)).toBe(8);
    expect(todoListHeight(plan.slice(0, 2))).toBe(3);
    expect(todoListHeight(plan.map((t) => ({ ...t, status: 'completed' as const })))).toBe(0);
  });
  it('shows fewer items when the live area gives it fewer lines, and none when a header and one item do not fit', async () => {
    expect(todoItemsFitting(plan, 8)).toBe(6);
    expect(todoItemsFitting(plan, 5)).toBe(3);
    expect(todoItemsFitting(plan, 2)).toBe(0);
    const shown = frame(await mount(<TodoList todos={plan} width={40} max={todoItemsFitting(plan, 5)} />));
    expect(shown.split('\n')).toEqual(['plan 0/9', '☐ step 0', '☐ step 1', '☐ step 2', '… 6 more']);
    expect(frame(await mount(<TodoList todos={plan} width={40} max={0} />))).toBe('');
  });
});
