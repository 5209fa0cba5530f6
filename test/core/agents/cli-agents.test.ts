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

  it("reads Claude Code's `effort` as an agent file's; a value that is no level skips the agent, naming it and the levels", () => {
    const { definitions, warnings } = definitionsFromFlag(
      JSON.stringify({
        deep: { description: 'Thinks hard.', prompt: 'Think.', effort: 'high' },
        loud: { description: 'Shouts.', prompt: 'Think.', effort: ' MAX ' },
        wild: { description: 'Too much.', prompt: 'Think.', effort: 'extreme' },
        odd: { description: 'A number.', prompt: 'Think.', effort: 3 },
      }),
    );
    expect(definitions.map((d) => [d.name, d.effort])).toEqual([
      ['deep', 'high'],
      ['loud', 'max'],
    ]);
    // Typed by the user, not read from a repository: its effort is not held to the session's.
    expect(definitions[0]!.fromRepository).toBeUndefined();
    expect(warnings).toEqual([
      '--agents wild: effort: expected one of low, medium, high, max, got "extreme"',
      '--agents odd: effort: expected one of low, medium, high, max, got 3',
    ]);
  });

  it('says what is wrong with JSON that is not an object of agents', () => {
    expect(() => definitionsFromFlag('{"reviewer": ')).toThrow(AgentsFlagError);
    expect(() => definitionsFromFlag('{"reviewer": ')).toThrow(/^--agents: not valid JSON/);
    expect(() => definitionsFromFlag('[1, 2]')).toThrow(/expected an object of agents by name/);
  });
});
