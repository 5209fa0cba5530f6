import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { openSession } from '../../../src/core/session/open-session.js';
import {
  type EnvironmentFacts,
  buildSystemPrompt,
  environmentFacts,
  readInstructionFiles,
} from '../../../src/core/session/system-prompt.js';
import { fakeStream } from '../../support/fake-stream.js';

function tempDir(): string {
  return mkdtempSync(path.join(os.tmpdir(), 'outrider-prompt-'));
}

function write(file: string, content: string): string {
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, content);
  return file;
}

const facts: EnvironmentFacts = { cwd: '/work/project', platform: 'linux x64', date: '2025-03-04', isGitRepo: true };

describe('readInstructionFiles', () => {
  it('returns the files that exist in the order given, trimmed, skipping missing ones', () => {
    const dir = tempDir();
    const user = write(path.join(dir, 'home/AGENTS.md'), '\n  Use British spelling.  \n\n');
    const project = write(path.join(dir, 'project/AGENTS.md'), 'Run npm test after changes.\n');
    const missing = path.join(dir, 'nowhere/AGENTS.md');
    expect(readInstructionFiles([user, missing, project])).toEqual([
      { path: user, content: 'Use British spelling.' },
      { path: project, content: 'Run npm test after changes.' },
    ]);
    expect(readInstructionFiles([missing])).toEqual([]);
  });

  it('skips an empty file and a directory named AGENTS.md', () => {
    const dir = tempDir();
    const empty = write(path.join(dir, 'a/AGENTS.md'), '  \n\n');
    const folder = path.join(dir, 'b/AGENTS.md');
    mkdirSync(folder, { recursive: true });
    expect(readInstructionFiles([empty, folder])).toEqual([]);
  });

  it('cuts an oversized file at 16 KB and says so, naming the file', () => {
    const dir = tempDir();
    const big = write(path.join(dir, 'AGENTS.md'), `${'a'.repeat(16 * 1024)}TAIL-THAT-IS-CUT\n`);
    const [file] = readInstructionFiles([big]);
    expect(file!.content.startsWith('a'.repeat(16 * 1024))).toBe(true);
    expect(file!.content).not.toContain('TAIL-THAT-IS-CUT');
    expect(file!.content).toMatch(new RegExp(`\\[… cut: ${big.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} is over 16 KB\\]$`));
    expect(file!.content.length).toBeLessThan(16 * 1024 + 200);
  });

  it('leaves a file of exactly 16 KB whole', () => {
    const dir = tempDir();
    const exact = write(path.join(dir, 'AGENTS.md'), 'b'.repeat(16 * 1024));
    expect(readInstructionFiles([exact])[0]!.content).toBe('b'.repeat(16 * 1024));
  });
});

describe('environmentFacts', () => {
  it('takes the date from the given Date and says whether the folder is a git repository', () => {
    const plain = tempDir();
    const repo = tempDir();
    mkdirSync(path.join(repo, '.git'));
    const when = new Date('2024-11-05T12:00:00Z');
    expect(environmentFacts(plain, when)).toEqual({
      cwd: plain,
      platform: `${process.platform} ${process.arch}`,
      date: '2024-11-05',
      isGitRepo: false,
    });
    expect(environmentFacts(repo, when).isGitRepo).toBe(true);
  });
});

describe('buildSystemPrompt', () => {
  it('states the environment facts', () => {
    const prompt = buildSystemPrompt(facts, []);
    expect(prompt).toContain('Working directory: /work/project');
    expect(prompt).toContain('Platform: linux x64');
    expect(prompt).toContain('Date: 2025-03-04');
    expect(prompt).toContain('Git repository: yes');
    expect(buildSystemPrompt({ ...facts, isGitRepo: false }, [])).toContain('Git repository: no');
    expect(prompt).not.toContain('# Instructions from');
  });

  it('includes the user file, then the project file, after the environment', () => {
    const prompt = buildSystemPrompt(facts, [
      { path: '/home/me/.outrider/AGENTS.md', content: 'USER RULES' },
      { path: '/work/project/AGENTS.md', content: 'PROJECT RULES' },
    ]);
    const environment = prompt.indexOf('# Environment');
    const user = prompt.indexOf('# Instructions from /home/me/.outrider/AGENTS.md\nUSER RULES');
    const project = prompt.indexOf('# Instructions from /work/project/AGENTS.md\nPROJECT RULES');
    expect(environment).toBeGreaterThan(0);
    expect(user).toBeGreaterThan(environment);
    expect(project).toBeGreaterThan(user);
  });

  it('gives byte-identical output for the same inputs', () => {
    const dir = tempDir();
    const user = write(path.join(dir, 'home/AGENTS.md'), 'user rules\n');
    const project = write(path.join(dir, 'project/AGENTS.md'), 'project rules\n');
    const when = new Date('2025-01-02T09:30:00Z');
    const build = () => buildSystemPrompt(environmentFacts(path.join(dir, 'project'), when), readInstructionFiles([user, project]));
    const first = build();
    const second = build();
    expect(Buffer.from(second).equals(Buffer.from(first))).toBe(true);
    expect(first).toContain('user rules');
    expect(first).toContain('project rules');
    // A different day is a different prompt: the date really comes from the given Date.
    const nextDay = buildSystemPrompt(environmentFacts(path.join(dir, 'project'), new Date('2025-01-03T09:30:00Z')), []);
    expect(nextDay).toContain('Date: 2025-01-03');
  });
});

describe('the session system prompt', () => {
  it('holds ~/.outrider/AGENTS.md first and ./AGENTS.md second; a missing one is skipped', async () => {
    const base = tempDir();
    const home = path.join(base, 'home');
    const project = path.join(base, 'project');
    mkdirSync(path.join(project, '.git'), { recursive: true });
    write(path.join(home, 'AGENTS.md'), 'USER: prefer small commits');
    write(path.join(project, 'AGENTS.md'), 'PROJECT: run make check');
    const env = { OUTRIDER_HOME: home, ANTHROPIC_API_KEY: 'sk-ant-test' };

    const dayBefore = new Date().toISOString().slice(0, 10);
    const opened = await openSession({ cwd: project, env, headless: true, flags: {}, stream: fakeStream([]) });
    const dayAfter = new Date().toISOString().slice(0, 10);
    const system = opened.session.system;
    await opened.close();
    const user = system.indexOf(`# Instructions from ${path.join(home, 'AGENTS.md')}\nUSER: prefer small commits`);
    const own = system.indexOf(`# Instructions from ${path.join(project, 'AGENTS.md')}\nPROJECT: run make check`);
    expect(user).toBeGreaterThan(0);
    expect(own).toBeGreaterThan(user);
    expect(system).toContain(`Working directory: ${project}`);
    expect(system).toContain('Git repository: yes');
    // Either side of a midnight that falls while the session opens.
    expect([`Date: ${dayBefore}`, `Date: ${dayAfter}`].some((line) => system.includes(line))).toBe(true);

    const emptyHome = path.join(base, 'home2');
    const withoutUser = await openSession({ cwd: project, env: { ...env, OUTRIDER_HOME: emptyHome }, headless: true, flags: {}, stream: fakeStream([]) });
    const second = withoutUser.session.system;
    await withoutUser.close();
    expect(second.match(/# Instructions from/g)).toHaveLength(1);
    expect(second).toContain('PROJECT: run make check');
  });
});
