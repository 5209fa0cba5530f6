import { describe, expect, it } from 'vitest';
import { AgentsFlagError, definitionsFromFlag } from '../../../src/core/agents/cli-agents.js';

describe('--agents', () => {
  it("reads agents in Claude Code's format, tool names mapped as for .claude/agents files", () => {
    const { definitions, warnings } = definitionsFromFlag(
      JSON.stringify({
        reviewer: {
          description: 'Reviews diffs: strictly.',
          prompt: 'You review code.',
          tools: ['Read', 'Grep'],
          model: 'sonnet',
        },
      }),
    );
    expect(warnings).toEqual([]);
    expect(definitions).toEqual([
      expect.objectContaining({
        name: 'reviewer',
        description: 'Reviews diffs: strictly.',
        systemPrompt: 'You review code.',
        tools: ['read_file', 'grep'],
        model: 'sonnet',
      }),
    ]);
  });

  it('skips an entry it cannot use with one warning naming it, and keeps the others', () => {
    const { definitions, warnings } = definitionsFromFlag(
      JSON.stringify({
        a: { description: 'A.' },
        b: 'nope',
        c: { description: 'C.', prompt: 'Be C.' },
        'Bad Name': { description: 'x', prompt: 'y' },
      }),
    );
    expect(definitions.map((d) => d.name)).toEqual(['c']);
    expect(warnings).toEqual([
      '--agents a: missing "prompt", the agent\'s system prompt',
      '--agents b: expected an object with "description" and "prompt"',
      expect.stringMatching(/^--agents Bad Name: name: /),
    ]);
  });

  it('says what is wrong with JSON that is not an object of agents', () => {
    expect(() => definitionsFromFlag('{"reviewer": ')).toThrow(AgentsFlagError);
    expect(() => definitionsFromFlag('{"reviewer": ')).toThrow(/^--agents: not valid JSON/);
    expect(() => definitionsFromFlag('[1, 2]')).toThrow(/expected an object of agents by name/);
  });
});
