import { describe, expect, it } from 'vitest';
import type { ApprovalAnswer } from '../../../src/core/permissions/types.js';
import { ApprovalPrompt } from '../../../src/ui/components/approval-prompt.js';
import { approvalView } from '../../../src/ui/state/approval-view.js';
import { KEY, frame, keys, mount } from '../harness.js';

const request = {
  toolName: 'bash',
  label: 'npm test',
  args: { command: 'npm test' },
  reason: 'bash can change files and run programs',
};

describe('the approval prompt', () => {
  it('shows the tool, its label and the reason, and which sub-agent asks', async () => {
    const rendered = await mount(
      <ApprovalPrompt pending={{ key: 1, request: { ...request, jobId: 'sub-2' } }} more={1} onAnswer={() => {}} />,
    );
    const text = frame(rendered);
    expect(text).toContain('Allow sub-2 to run npm test?');
    expect(text).toContain('bash can change files and run programs');
    expect(text).toContain('y allow once · a allow always · n/Esc deny');
    expect(text).toContain('(1 more waiting)');
  });

  it('says the agent asks when the parent does', async () => {
    const rendered = await mount(<ApprovalPrompt pending={{ key: 1, request }} more={0} onAnswer={() => {}} />);
    expect(frame(rendered)).toContain('Allow the agent to run npm test?');
  });

  it('names the file a write or an edit would change, and shows what it would write', async () => {
    const files: Record<string, string> = { '/p/a.txt': 'one\ntwo\nthree\n' };
    const read = (file: string) => files[file];
    const write = {
      key: 1,
      request: { toolName: 'write_file', label: 'a.txt', args: { path: 'a.txt', content: 'one\n2\nthree\n' }, reason: '' },
    };
    let rendered = await mount(
      <ApprovalPrompt pending={write} view={approvalView(write.request, { root: '/p', read })} more={0} onAnswer={() => {}} />,
    );
    let text = frame(rendered);
    expect(text).toContain('Allow the agent to overwrite a.txt?');
    expect(text).toMatch(/-two[\s\S]*\+2/);
    const created = {
      key: 2,
      request: { ...write.request, label: 'b.txt', args: { path: '/p/b.txt', content: 'fresh\nfile\n' } },
    };
    rendered = await mount(
      <ApprovalPrompt
        pending={created}
        view={approvalView(created.request, { root: '/p', read })}
        more={0}
        onAnswer={() => {}}
      />,
    );
    text = frame(rendered);
    expect(text).toContain('write b.txt (new file)?');
    expect(text).toMatch(/\+fresh[\s\S]*\+file/);
    const edit = {
      key: 3,
      request: {
        toolName: 'edit_file',
        label: 'a.txt',
        args: { path: 'a.txt', old_string: 'two', new_string: 'TWO' },
        reason: '',
        jobId: 'sub-4',
      },
    };
    rendered = await mount(
      <ApprovalPrompt pending={edit} view={approvalView(edit.request, { root: '/p', read })} more={0} onAnswer={() => {}} />,
    );
    text = frame(rendered);
    expect(text).toContain('Allow sub-4 to edit a.txt?');
    expect(text).toMatch(/-two[\s\S]*\+TWO/);
  });

  it('cuts a long preview to the lines it is given', async () => {
    const content = Array.from({ length: 50 }, (_, i) => `line ${i}`).join('\n');
    const write = {
      key: 1,
      request: { toolName: 'write_file', label: 'big.txt', args: { path: 'big.txt', content }, reason: 'needs approval' },
    };
    const rendered = await mount(<ApprovalPrompt pending={write} more={0} onAnswer={() => {}} maxLines={10} />);
    expect(frame(rendered).split('\n')).toHaveLength(10);
    expect(frame(rendered)).toContain('more lines');
  });

  it.each([
    ['y', 'allow'],
    ['Y', 'allow'],
    ['a', 'allow-always'],
    ['n', 'deny'],
    [KEY.escape, 'deny'],
  ] as const)('answers %j with %s', async (key, expected) => {
    const answers: ApprovalAnswer[] = [];
    const rendered = await mount(<ApprovalPrompt pending={{ key: 1, request }} more={0} onAnswer={(a) => answers.push(a)} />);
    await keys(rendered, 'q', key);
    expect(answers).toEqual([expected]);
  });
});
