import { describe, expect, it } from 'vitest';
import { ApprovalPrompt } from '../../../src/ui/components/approval-prompt.js';
import { approvalView } from '../../../src/ui/state/approval-view.js';
import { frame, mount } from '../harness.js';

/** The question core/agents/fan-out-approval.ts asks when a turn starts more sub-agents than agents.approve allows. */
const request = {
  toolName: 'agent_start',
  label: '5 sub-agents this turn',
  args: { count: 5, limit: 3 },
  reason: 'estimate: ~5 × 40k tokens ($0.40) = ~200k tokens ($2.00), from 4 finished sub-agents · agents.approve is "over:3"',
};

describe('the fan-out approval in the TUI', () => {
  it('asks to start the sub-agents, with the count and the estimate', async () => {
    expect(approvalView(request)).toEqual({ who: 'the agent', what: 'start 5 sub-agents this turn', preview: [] });
    const rendered = await mount(<ApprovalPrompt pending={{ key: 1, request }} more={0} onAnswer={() => {}} width={100} />);
    const text = frame(rendered);
    expect(text).toContain('Allow the agent to start 5 sub-agents this turn?');
    expect(text).toContain('estimate: ~5 × 40k tokens ($0.40) = ~200k tokens ($2.00)');
  });
});
