import { describe, expect, it } from 'vitest';
import type { ApprovalAnswer } from '../../../src/core/permissions/types.js';
import { ApprovalPrompt } from '../../../src/ui/components/approval-prompt.js';
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
    expect(text).toContain('sub-2 asks: run bash npm test?');
    expect(text).toContain('bash can change files and run programs');
    expect(text).toContain('y allow once · a allow always · n/Esc deny');
    expect(text).toContain('(1 more waiting)');
  });

  it('says the agent asks when the parent does', async () => {
    const rendered = await mount(<ApprovalPrompt pending={{ key: 1, request }} more={0} onAnswer={() => {}} />);
    expect(frame(rendered)).toContain('The agent asks: run bash npm test?');
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
