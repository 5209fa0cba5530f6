import { describe, expect, it } from 'vitest';
import { MENU_COMMANDS, menuCommands, parseSlashCommand } from '../../src/ui/slash-commands.js';

describe('parseSlashCommand', () => {
  it.each([
    ['/help', { name: 'help' }],
    ['  /HELP  ', { name: 'help' }],
    ['/agents', { name: 'agents' }],
    ['/agents stop sub-3', { name: 'agents-stop', target: 'sub-3' }],
    ['/agents stop 3', { name: 'agents-stop', target: '3' }],
    ['/agents stop all', { name: 'agents-stop', target: 'all' }],
    ['/agents merge sub-2', { name: 'agents-worktree', verb: 'merge', target: 'sub-2' }],
    ['/agents merge sub-3  1 sub-2', { name: 'agents-worktree', verb: 'merge', target: 'sub-3 1 sub-2' }],
    ['/agents merge all', { name: 'agents-worktree', verb: 'merge', target: 'all' }],
    ['/agents discard 2', { name: 'agents-worktree', verb: 'discard', target: '2' }],
    ['/agents send sub-2 also check the tests', { name: 'agents-send', target: 'sub-2', text: 'also check the tests' }],
    ['/agents send 2 stop', { name: 'agents-send', target: '2', text: 'stop' }],
    ['/agent send sub-1  keep   the  spaces ', { name: 'agents-send', target: 'sub-1', text: 'keep   the  spaces' }],
    ['/agents send sub-1 first line\nsecond line', { name: 'agents-send', target: 'sub-1', text: 'first line\nsecond line' }],
    ['/agents send sub-1 send sub-2 merge', { name: 'agents-send', target: 'sub-1', text: 'send sub-2 merge' }],
    ['/compact', { name: 'compact' }],
    ['/cost', { name: 'cost' }],
    ['/mcp', { name: 'mcp' }],
    ['/mcp login linear', { name: 'mcp-auth', verb: 'login', server: 'linear' }],
    ['/mcp logout linear', { name: 'mcp-auth', verb: 'logout', server: 'linear' }],
    ['/model', { name: 'model' }],
    ['/model opus', { name: 'model', model: 'opus' }],
    ['/model 3 high', { name: 'model', model: '3', effort: 'high' }],
    ['/quit', { name: 'quit' }],
    ['/exit', { name: 'quit' }],
    ['/frob x', { name: 'unknown', command: '/frob' }],
  ])('%j → %j', (line, expected) => {
    expect(parseSlashCommand(line)).toEqual(expected);
  });

  it('explains the usage of /model with too many words', () => {
    expect(parseSlashCommand('/model opus high now')).toMatchObject({
      name: 'usage',
      message: expect.stringContaining('/model <name|n>'),
    });
  });

  it('explains the usage of /mcp with wrong arguments', () => {
    for (const line of ['/mcp login', '/mcp signin linear', '/mcp login a b']) {
      expect(parseSlashCommand(line)).toMatchObject({ name: 'usage', message: expect.stringContaining('/mcp login <server>') });
    }
  });

  it('explains the usage of /agents with wrong arguments', () => {
    for (const line of [
      '/agents stop',
      '/agents kill sub-1',
      '/agents stop sub-1 sub-2',
      '/agents merge',
      '/agents discard 1 2',
    ]) {
      expect(parseSlashCommand(line)).toMatchObject({ name: 'usage', message: expect.stringContaining('/agents stop <id|all>') });
    }
  });

  it('explains /agents send without an id or a message, naming the id it got', () => {
    expect(parseSlashCommand('/agents send')).toEqual({
      name: 'usage',
      message: 'usage: /agents send <id> <message> (e.g. /agents send sub-2 also check the tests)',
    });
    for (const line of ['/agents send sub-3', '/agents send sub-3   ', '/agents send sub-3 \n ']) {
      expect(parseSlashCommand(line)).toEqual({
        name: 'usage',
        message:
          '/agents send sub-3: the message is empty; say what the sub-agent should do (usage: /agents send <id> <message> (e.g. /agents send sub-2 also check the tests))',
      });
    }
  });

  it('leaves prompts alone', () => {
    expect(parseSlashCommand('explain /etc/hosts')).toBeUndefined();
    expect(parseSlashCommand('')).toBeUndefined();
  });
});

describe('the / menu', () => {
  it('lists custom commands after the built-in ones, with their hint and description', () => {
    const menu = menuCommands([
      { name: 'frontend:component', description: 'make a component', argumentHint: '<name>' },
      { name: 'plain' },
      { name: 'help', description: 'a file that would shadow /help' },
    ]);
    expect(menu.slice(0, MENU_COMMANDS.length)).toEqual(MENU_COMMANDS);
    expect(menu.slice(MENU_COMMANDS.length)).toEqual([
      { name: 'frontend:component', does: '<name> · make a component' },
      { name: 'plain', does: 'custom command' },
    ]);
  });

  it("lists MCP servers' prompts last, as commands that take input; a name already listed is not listed twice", () => {
    const menu = menuCommands(
      [{ name: 'mcp__docs__review', description: 'my own' }],
      [
        { name: 'mcp__docs__review', does: "the server's", takesInput: true },
        { name: 'cost', does: 'a prompt named like a built-in', takesInput: true },
        { name: 'mcp__docs__summarize', does: 'MCP prompt', takesInput: true },
      ],
    );
    expect(menu.slice(MENU_COMMANDS.length)).toEqual([
      { name: 'mcp__docs__review', does: 'my own' },
      { name: 'mcp__docs__summarize', does: 'MCP prompt', takesInput: true },
    ]);
  });
});
