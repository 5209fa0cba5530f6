import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { commandName, loadCommands, parseCommand } from '../../../src/core/commands/command-files.js';
import { expandCommand, parseCommandCall, splitWords, substituteArguments } from '../../../src/core/commands/expand.js';
import { loadSessionCommands, promptFor } from '../../../src/core/commands/session-commands.js';
import { MAX_AGENT_FILE_BYTES } from '../../../src/core/agents/definition-files.js';

let root: string;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'outrider-commands-'));
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

function write(file: string, text: string): string {
  const full = join(root, file);
  mkdirSync(join(full, '..'), { recursive: true });
  writeFileSync(full, text);
  return full;
}

const meta = { name: 'x', path: '/p/x.md', source: 'user' as const, applyTools: true };

describe('command files', () => {
  it("reads Claude Code's front matter: description, argument-hint (unquoted brackets), allowed-tools, model", () => {
    const parsed = parseCommand(
      '---\ndescription: Review a pull request\nargument-hint: [pr-number] [priority]\nallowed-tools: Bash(git diff:*), Read, Grep, mcp__github__*\nmodel: haiku\n---\nReview PR $1 at priority $2.\n',
      meta,
    );
    expect('command' in parsed).toBe(true);
    if (!('command' in parsed)) return;
    expect(parsed.command).toMatchObject({
      description: 'Review a pull request',
      argumentHint: '[pr-number] [priority]',
      allowedTools: ['Bash(git diff:*)', 'read_file', 'grep', 'mcp__github__*'],
      body: 'Review PR $1 at priority $2.',
    });
    // A pattern of bash is kept as the permission rule it is (never all of bash); the model is named as ignored.
    expect(parsed.warning ?? '').not.toContain('Bash(git diff:*)');
    expect(parsed.warning).toContain('ignored model "haiku"');
  });

  it('takes a file without front matter whole, its first line as the description', () => {
    const parsed = parseCommand('# Explain the code\n\nExplain $ARGUMENTS simply.', meta);
    expect(parsed).toMatchObject({
      command: { description: 'Explain the code', body: '# Explain the code\n\nExplain $ARGUMENTS simply.' },
    });
  });

  it('refuses bad YAML with the line, and the folder still loads the others', () => {
    write('commands/bad.md', '---\ndescription: "never closed\n---\nbody');
    write('commands/good.md', 'Good body');
    const { commands, warnings } = loadCommands([{ dir: join(root, 'commands'), source: 'user' }], { projectTrusted: false });
    expect([...commands.keys()]).toEqual(['good']);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/bad\.md: line 2: invalid YAML/);
  });

  it('names sub-folders as namespaces, and refuses names that are not names', () => {
    const dir = join(root, 'commands');
    expect(commandName(dir, join(dir, 'frontend', 'component.md'))).toBe('frontend:component');
    expect(commandName(dir, join(dir, 'a b.md'))).toBeUndefined();
    expect(commandName(dir, join(dir, 'x:y.md'))).toBeUndefined();
    write('commands/frontend/component.md', 'Make a component $1');
    write('commands/with space.md', 'nope');
    const { commands, warnings } = loadCommands([{ dir, source: 'user' }], { projectTrusted: false });
    expect([...commands.keys()]).toEqual(['frontend:component']);
    expect(warnings.join('\n')).toContain('with space.md: not a command name');
  });

  it('later folders win; project allowed-tools apply only when the folder is trusted, with one warning otherwise', () => {
    write('home/.claude/commands/review.md', '---\ndescription: user review\n---\nuser body');
    write('proj/.claude/commands/review.md', '---\ndescription: project review\nallowed-tools: Bash, Edit\n---\nproject body');
    write('proj/.claude/commands/ship.md', '---\nallowed-tools: [Bash]\n---\nship it');
    const input = {
      cwd: join(root, 'proj'),
      home: join(root, 'home'),
      outriderHome: join(root, 'home/.outrider'),
      knownTools: [],
    };
    const untrusted = loadSessionCommands({ ...input, projectTrusted: false });
    expect(untrusted.commands.get('review')).toMatchObject({
      description: 'project review',
      allowedTools: [],
      source: 'project',
    });
    expect(untrusted.warnings).toEqual([
      "allowed-tools of the project's commands /review, /ship are not applied: this folder is not trusted (the commands still run, asking as usual; --trust applies them for one run)",
    ]);
    const trusted = loadSessionCommands({ ...input, projectTrusted: true });
    expect(trusted.commands.get('review')!.allowedTools).toEqual(['bash', 'edit_file']);
    expect(trusted.warnings).toEqual([]);
  });

  it("a user folder's allowed-tools apply without trust", () => {
    write('home/.outrider/commands/test.md', '---\nallowed-tools: Bash\n---\nrun the tests');
    const loaded = loadSessionCommands({
      cwd: join(root, 'proj'),
      home: join(root, 'home'),
      outriderHome: join(root, 'home/.outrider'),
      knownTools: [],
      projectTrusted: false,
    });
    expect(promptFor('/test', loaded.commands)).toEqual({ prompt: 'run the tests', allow: ['bash'] });
  });

  it('does not follow a project command folder that links out of the project, nor a file that does', () => {
    write('outside/secret.md', 'the secret');
    mkdirSync(join(root, 'proj/.claude'), { recursive: true });
    symlinkSync(join(root, 'outside'), join(root, 'proj/.claude/commands'));
    write('proj/.outrider/commands/ok.md', 'fine');
    symlinkSync(join(root, 'outside/secret.md'), join(root, 'proj/.outrider/commands/leak.md'));
    const loaded = loadSessionCommands({
      cwd: join(root, 'proj'),
      home: undefined,
      outriderHome: join(root, 'home/.outrider'),
      knownTools: [],
      projectTrusted: true,
    });
    expect([...loaded.commands.keys()]).toEqual(['ok']);
    expect(loaded.warnings.join('\n')).toMatch(/outside the project; its commands are not read/);
    expect(loaded.warnings.join('\n')).toMatch(/leak\.md: links outside/);
  });

  it('skips a huge file with a warning instead of reading it', () => {
    write('commands/huge.md', 'x'.repeat(MAX_AGENT_FILE_BYTES + 1));
    const { commands, warnings } = loadCommands([{ dir: join(root, 'commands'), source: 'user' }], { projectTrusted: false });
    expect(commands.size).toBe(0);
    expect(warnings[0]).toMatch(/huge\.md: \d+ bytes; command files over 256 KB are not read/);
  });
});

describe('expansion', () => {
  const commands = new Map(
    [
      ['review', 'Review $ARGUMENTS carefully.'],
      ['fix', 'Fix issue $1 in $2; ignore $3.'],
      ['plain', 'Summarize the changes.'],
      ['frontend:component', 'Create a $1 component.'],
    ].map(([name, body]) => [
      name!,
      { name: name!, description: '', allowedTools: [], droppedTools: [], body: body!, path: '', source: 'user' as const },
    ]),
  );

  it('replaces $ARGUMENTS and $1…$9, quotes grouping words', () => {
    expect(expandCommand('/review src', commands)?.prompt).toBe('Review src carefully.');
    expect(expandCommand('/fix 42 "the parser" ', commands)?.prompt).toBe('Fix issue 42 in the parser; ignore .');
    expect(expandCommand('/frontend:component Button', commands)?.prompt).toBe('Create a Button component.');
    expect(splitWords(`a "b c" 'd e' f`)).toEqual(['a', 'b c', 'd e', 'f']);
  });

  it('appends the arguments to a body without placeholders', () => {
    expect(expandCommand('/plain the last commit', commands)?.prompt).toBe('Summarize the changes.\n\nthe last commit');
    expect(expandCommand('/plain', commands)?.prompt).toBe('Summarize the changes.');
  });

  it('substitutes once: an argument holding $1 or $ARGUMENTS stays as typed', () => {
    expect(substituteArguments('A: $1 B: $2', '$2 $ARGUMENTS')).toBe('A: $2 B: $ARGUMENTS');
    expect(substituteArguments('$10 is not $1', 'x')).toBe('$10 is not x');
  });

  it('bounds what many placeholders and a long argument can grow to', () => {
    const out = substituteArguments('$ARGUMENTS '.repeat(1000), 'x'.repeat(10_000), 100_000);
    expect(out.length).toBeLessThan(100_000 + 200);
    expect(out).toContain('were left out where they would have made the prompt longer than 100000 characters');
    expect(substituteArguments('$ARGUMENTS', 'short', 100_000)).toBe('short');
  });

  it('leaves prompts that name no command alone, paths and hostile names included', () => {
    for (const prompt of [
      '/usr/bin is odd',
      '/unknown thing',
      '/../../etc/passwd',
      '/__proto__',
      '/constructor x',
      'review src',
      ' /',
    ]) {
      expect(expandCommand(prompt, commands)).toBeUndefined();
      expect(promptFor(prompt, commands)).toEqual({ prompt, allow: [] });
    }
    expect(parseCommandCall('/usr/bin')).toBeUndefined();
    expect(parseCommandCall('/review\nline two')).toEqual({ name: 'review', args: 'line two' });
  });
});
