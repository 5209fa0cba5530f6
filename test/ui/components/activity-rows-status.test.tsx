import { describe, expect, it } from 'vitest';
import { ActivityRows } from '../../../src/ui/components/activity-rows.js';
import { frame, jobView, mount } from '../harness.js';

// eslint-disable-next-line no-control-regex -- the escape character is what is matched
const plain = (text: string) => text.replace(/\u001b\[[0-9;]*m/g, '');

describe('activity rows with subagentStatusLine lines', () => {
  it("replace a row's detail after its id, cut to the width; a waiting approval still says so; an empty line keeps the detail", async () => {
    const jobs = [
      jobView({ number: 1 }),
      jobView({ number: 2, depth: 2, id: 'sub-1.1' }),
      jobView({ number: 3 }),
      jobView({ number: 4 }),
    ];
    const custom = new Map([
      ['sub-1', '\u001b[35mreviewing\u001b[0m auth.ts'],
      ['sub-1.1', 'x'.repeat(200)],
      ['sub-3', 'asks for approval'],
      ['sub-4', ''],
    ]);
    const rendered = await mount(
      <ActivityRows jobs={jobs} now={5000} width={40} custom={custom} waiting={new Map([['sub-3', 'bash rm -rf build']])} />,
    );
    const lines = plain(frame(rendered)).split('\n');
    expect(lines[0]).toBe('sub-1  reviewing auth.ts');
    expect(lines[1]).toBe(`  sub-1.1  ${'x'.repeat(28)}…`);
    expect(lines[2]).toMatch(/^sub-3 {2}waiting for approval: bash/);
    expect(lines[3]).toMatch(/^sub-4 {2}thinking… · 5s/);
  });
});
