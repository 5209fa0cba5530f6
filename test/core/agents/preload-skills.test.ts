import { describe, expect, it } from 'vitest';
import type { AgentDefinition } from '../../../src/core/agents/agent-definition.js';
import { MAX_PRELOADED_SKILL_BYTES, type SkillText, preloadSkills } from '../../../src/core/agents/preload-skills.js';
import { forWorker } from '../../../src/core/agents/scoped-run.js';

const definition = (name: string, extra: Partial<AgentDefinition> = {}): AgentDefinition => ({
  name,
  description: `The ${name} agent.`,
  systemPrompt: `You are ${name}.`,
  disallowedTools: [],
  model: 'inherit',
  source: 'project',
  path: `/p/${name}.md`,
  ...extra,
});
const skill = (name: string, body: string): SkillText => ({ name, body, path: `/s/${name}/SKILL.md`, dir: `/s/${name}` });

describe('preloadSkills', () => {
  it("adds each named skill's whole text after the agent's prompt, in the order named; others are untouched", () => {
    const plain = definition('plain');
    const definitions = new Map([
      ['writer', definition('writer', { skills: ['b', 'a'] })],
      ['plain', plain],
    ]);
    const warnings = preloadSkills(
      definitions,
      new Map([
        ['a', skill('a', 'Alpha rules.')],
        ['b', skill('b', 'Beta rules.')],
      ]),
    );
    expect(warnings).toEqual([]);
    const prompt = definitions.get('writer')!.systemPrompt;
    expect(prompt.startsWith('You are writer.\n\n# Skills\n')).toBe(true);
    expect(prompt.indexOf('## Skill b (/s/b/SKILL.md)\n\nBeta rules.')).toBeLessThan(prompt.indexOf('## Skill a'));
    expect(definitions.get('plain')).toBe(plain);
  });

  it('warns naming the file and the skill it cannot find, once per file, and runs the agent without it', () => {
    const definitions = new Map([
      ['a', definition('a', { skills: ['nope', 'also-nope'] })],
      ['b', definition('b', { skills: ['x'], path: undefined })],
    ]);
    expect(preloadSkills(definitions, new Map([['x', skill('x', 'X.')]]))).toEqual([
      '/p/a.md: skills: no skill named "nope", "also-nope" (skills here: x); its jobs run without them',
    ]);
    expect(definitions.get('a')!.systemPrompt).toBe('You are a.');
    expect(preloadSkills(new Map([['c', definition('c', { skills: ['y'], path: undefined })]]), new Map())).toEqual([
      '--agents c: skills: no skill named "y" (skills here: none); its jobs run without it',
    ]);
  });

  it('stops at the budget: a skill that would pass it is named and left out', () => {
    const big = 'x'.repeat(MAX_PRELOADED_SKILL_BYTES - 500);
    const definitions = new Map([['a', definition('a', { skills: ['big', 'more', 'small'] })]]);
    const warnings = preloadSkills(
      definitions,
      new Map([
        ['big', skill('big', big)],
        ['more', skill('more', 'y'.repeat(1000))],
        ['small', skill('small', 'tiny')],
      ]),
    );
    expect(warnings).toEqual(['/p/a.md: skills: "more" not preloaded: one agent\'s preloaded skills stop at 100 KB']);
    const prompt = definitions.get('a')!.systemPrompt;
    expect(prompt).toContain('## Skill small');
    expect(prompt).not.toContain('yyyy');
  });
});

describe('forWorker', () => {
  const request = {
    id: 'sub-1',
    task: 't',
    definition: 'm',
    mode: 'typed' as const,
    signal: new AbortController().signal,
    onEvent: () => {},
  };

  it('tells the user and the job what of its definition stays here when it runs on a worker', () => {
    const told: string[] = [];
    const sent = forWorker(request, definition('m', { memory: 'user', hooks: { PreToolUse: [] }, skills: ['s'] }), (t) =>
      told.push(t),
    );
    const note = 'hooks, memory of m\'s definition: not carried to a queue worker (run the job with where: "local" to have them)';
    expect(told).toEqual([`sub-1: ${note}`]);
    expect(sent.instructions).toBe(`Not available to you in this job:\n- ${note}`);
  });

  it('changes nothing for a definition without them, or a fork', () => {
    expect(forWorker(request, definition('m', { skills: ['s'] }), () => {})).toBe(request);
    const fork = { ...request, mode: 'fork' as const };
    expect(forWorker(fork, definition('m', { memory: 'user' }), () => {})).toBe(fork);
  });
});
