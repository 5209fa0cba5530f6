import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadDefinitions } from '../../../src/core/agents/definitions.js';
import { commandsReviewed, repositoryAgentCommands } from '../../../src/core/agents/repository-commands.js';
import { needsTrustAnswer, recordTrustAnswer } from '../../../src/core/config/review-settings.js';
import { reviewSetup } from '../../../src/core/session/open-session.js';
import { type TestDirs, testDirs } from '../../support/test-session.js';

const SERVER = '  - notes: {command: npx, args: [notes-mcp]}\n';
const HOOK = '  PreToolUse: [{matcher: Bash, hooks: [{type: command, command: ./check.sh}]}]\n';

function write(dirs: TestDirs, relative: string, name: string, extra: string): string {
  const file = path.join(dirs.cwd, relative, `${name}.md`);
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, `---\nname: ${name}\ndescription: The ${name} agent.\n${extra}---\nYou are ${name}.\n`);
  return file;
}

const review = (dirs: TestDirs) => reviewSetup({ cwd: dirs.cwd, env: dirs.env, flags: {} });

describe("the repository's agent files that run commands", () => {
  it('are the project files defining servers or hooks or a memory in your home, by relative path; others are not', () => {
    const dirs = testDirs();
    write(dirs, '.claude/agents', 'served', `mcpServers:\n${SERVER}`);
    write(dirs, '.outrider/agents/sub', 'hooked', `hooks:\n${HOOK}`);
    write(dirs, '.claude/agents', 'named', 'mcpServers: [github]\n');
    write(dirs, '.claude/agents', 'plain', 'tools: Read\n');
    write(dirs, '.claude/agents', 'remembers', 'memory: user\n');
    write(dirs, '.claude/agents', 'local-memory', 'memory: local\n');
    // Text that only mentions the fields, in the body: not parsed as front matter.
    writeFileSync(path.join(dirs.cwd, '.claude/agents/mention.md'), '---\nname: mention\ndescription: d\n---\nhooks: none\n');
    expect(repositoryAgentCommands(dirs.cwd)).toEqual({
      '.claude/agents/served.md': { mcpServers: { notes: { type: 'stdio', command: 'npx', args: ['notes-mcp'] } } },
      '.claude/agents/remembers.md': { userMemory: true },
      '.outrider/agents/sub/hooked.md': {
        hooks: { PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: './check.sh' }] }] },
      },
    });
  });

  it('ask "Trust this folder?" on their own, and a trust answer covers exactly what was reviewed', () => {
    const dirs = testDirs();
    write(dirs, '.claude/agents', 'served', `mcpServers:\n${SERVER}`);
    const first = review(dirs);
    expect(first.guarded).toEqual([]);
    expect(Object.keys(first.agentCommands ?? {})).toEqual(['.claude/agents/served.md']);
    expect(needsTrustAnswer(first)).toBe(true);
    recordTrustAnswer(first, 'trusted');
    expect(review(dirs).stored).toBe('trusted');

    const load = () =>
      loadDefinitions({
        projectDir: path.join(dirs.cwd, '.outrider/agents'),
        claudeDirs: [path.join(dirs.cwd, '.claude/agents')],
        projectRoot: dirs.cwd,
      }).definitions.get('served')!;
    expect(commandsReviewed(load(), { cwd: dirs.cwd, reviewed: first.agentCommands })).toBe(true);

    // Changed after the answer: the stored trust no longer holds, and the reviewed values do not cover it.
    write(dirs, '.claude/agents', 'served', `mcpServers:\n  - notes: {command: curl, args: [evil]}\n`);
    expect(review(dirs).stored).toBe('changed');
    expect(commandsReviewed(load(), { cwd: dirs.cwd, reviewed: first.agentCommands })).toBe(false);
    expect(commandsReviewed({ ...load(), path: undefined }, { cwd: dirs.cwd, reviewed: first.agentCommands })).toBe(false);
  });

  it('leave a folder without them as it was: nothing to ask', () => {
    const dirs = testDirs();
    write(dirs, '.claude/agents', 'named', 'mcpServers: [github]\nmemory: project\n');
    const reviewed = review(dirs);
    expect(reviewed.agentCommands).toBeUndefined();
    expect(needsTrustAnswer(reviewed)).toBe(false);
  });
});
