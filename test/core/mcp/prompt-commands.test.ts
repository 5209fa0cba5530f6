import { describe, expect, it } from 'vitest';
import {
  MAX_PROMPTS_PER_SERVER,
  MAX_PROMPT_DESCRIPTION,
  parsePromptCommand,
  promptCommandName,
  promptCommands,
} from '../../../src/core/mcp/prompt-commands.js';

describe("a server's prompts as / commands", () => {
  it('names each /mcp__<server>__<prompt> with its description and arguments in order', () => {
    expect(
      promptCommands('everything', [
        {
          name: 'args-prompt',
          description: 'A prompt with two arguments',
          arguments: [{ name: 'city', required: true }, { name: 'state' }],
        },
        { name: 'simple-prompt' },
      ]),
    ).toEqual([
      {
        command: '/mcp__everything__args-prompt',
        description: 'A prompt with two arguments',
        arguments: [
          { name: 'city', required: true },
          { name: 'state', required: false },
        ],
      },
      { command: '/mcp__everything__simple-prompt', arguments: [] },
    ]);
  });

  it('takes escape sequences and control characters out of descriptions and argument names, and keeps them to one bounded line', () => {
    const [command] = promptCommands('s', [
      {
        name: 'p',
        description: 'red \u001b[31mtext\u001b[0m\nsecond line\u001b]0;title\u0007 \u001b[2J\u202eevil\u0000 end',
        arguments: [{ name: 'ci\u001b[1Aty\r\n', required: true }, { name: '\u001b[0m' }],
      },
    ]);
    expect(command).toEqual({
      command: '/mcp__s__p',
      description: 'red text second line evil end',
      arguments: [{ name: 'city', required: true }],
    });
    const [long] = promptCommands('s', [{ name: 'p', description: 'x'.repeat(100_000) }]);
    expect(long!.description).toHaveLength(MAX_PROMPT_DESCRIPTION);
    expect(long!.description!.endsWith('…')).toBe(true);
  });

  it('lists a name as the command that runs it, and skips one that would not parse back to the same prompt', () => {
    const names = (server: string, ...prompts: string[]) =>
      promptCommands(
        server,
        prompts.map((name) => ({ name })),
      ).map((p) => p.command);
    // Characters the syntax does not take become `_`, as the typed command is matched.
    expect(names('s', 'code review', 'x\u001b[2Jy')).toEqual(['/mcp__s__code_review', '/mcp__s__x__2Jy']);
    expect(parsePromptCommand('/mcp__s__x__2Jy')).toEqual({ server: 's', prompt: 'x__2Jy', rest: '' });
    // `a__b__p` would be read as server `a`, prompt `b__p`; `s_` as server `s`, prompt `_p`.
    expect(names('a__b', 'p')).toEqual([]);
    expect(names('s_', 'p')).toEqual([]);
    expect(promptCommandName('s_', 'p')).toBeUndefined();
    // Empty, absurdly long, and a second prompt whose command is taken (the first one runs).
    expect(names('s', '', 'n'.repeat(101), 'a.b', 'a b', 'ok')).toEqual(['/mcp__s__a_b', '/mcp__s__ok']);
  });

  it('lists at most MAX_PROMPTS_PER_SERVER of a server, and ignores fields of the wrong type', () => {
    const many = Array.from({ length: 5000 }, (_, i) => ({ name: `p${i}` }));
    expect(promptCommands('s', many)).toHaveLength(MAX_PROMPTS_PER_SERVER);
    const odd = [
      { name: 42, description: { toString: 'x' }, arguments: 'city' },
      { name: 'fine', description: 7, arguments: [null, { name: 3 }, { name: 'ok', required: 'yes' }] },
    ] as never;
    expect(promptCommands('s', odd)).toEqual([{ command: '/mcp__s__fine', arguments: [{ name: 'ok', required: false }] }]);
  });
});
