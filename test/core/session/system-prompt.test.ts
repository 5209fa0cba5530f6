import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { openSession } from '../../../src/core/session/open-session.js';
import { loadInstructionFiles } from '../../../src/core/session/instruction-files.js';
import { type EnvironmentFacts, buildSystemPrompt, environmentFacts } from '../../../src/core/session/system-prompt.js';
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

  it('names the importer of an imported file', () => {
    const prompt = buildSystemPrompt(facts, [
      { path: '/work/project/AGENTS.md', content: 'See @docs/style.md' },
      { path: '/work/project/docs/style.md', content: 'STYLE', importedBy: '/work/project/AGENTS.md' },
    ]);
    expect(prompt).toContain('# Instructions from /work/project/docs/style.md (imported by /work/project/AGENTS.md)\nSTYLE');
  });

  it('gives byte-identical output for the same inputs', () => {
    const dir = tempDir();
    write(path.join(dir, 'home/AGENTS.md'), 'user rules\n');
    write(path.join(dir, 'project/AGENTS.md'), 'project rules\n');
    const when = new Date('2025-01-02T09:30:00Z');
    const sources = { cwd: path.join(dir, 'project'), outriderHome: path.join(dir, 'home') };
    const build = () => buildSystemPrompt(environmentFacts(sources.cwd, when), loadInstructionFiles(sources).files);
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
    const withoutUser = await openSession({
      cwd: project,
      env: { ...env, OUTRIDER_HOME: emptyHome },
      headless: true,
      flags: {},
      stream: fakeStream([]),
    });
    const second = withoutUser.session.system;
    await withoutUser.close();
    expect(second.match(/# Instructions from/g)).toHaveLength(1);
    expect(second).toContain('PROJECT: run make check');
  });
});

describe('instruction files in a session', () => {
  it('run from a sub-folder, reads the repository root CLAUDE.md and lists what it loaded; a resume keeps both', async () => {
    const base = tempDir();
    const home = path.join(base, 'home');
    const repo = path.join(base, 'repo');
    const sub = path.join(repo, 'packages', 'web');
    mkdirSync(path.join(repo, '.git'), { recursive: true });
    mkdirSync(sub, { recursive: true });
    const claude = write(path.join(repo, 'CLAUDE.md'), 'ROOT: use pnpm\n@docs/testing.md\n');
    const testing = write(path.join(repo, 'docs', 'testing.md'), 'TESTING: vitest only');
    const env = { OUTRIDER_HOME: home, ANTHROPIC_API_KEY: 'sk-ant-test' };

    const opened = await openSession({ cwd: sub, env, headless: true, flags: {}, stream: fakeStream([]) });
    const system = opened.session.system;
    const id = opened.session.id;
    await opened.close();
    expect(system).toContain(`# Instructions from ${claude}\nROOT: use pnpm`);
    expect(system).toContain(`# Instructions from ${testing} (imported by ${claude})\nTESTING: vitest only`);
    const listed = [
      { path: claude, scope: 'project', size: 32, included: 31, notes: [] },
      { path: testing, scope: 'project', size: 20, included: 20, importedBy: claude, notes: [] },
    ];
    expect(opened.instructionFiles).toEqual(listed);

    // Edited after the start: a resumed session keeps its stored prompt and the list that built it.
    write(path.join(repo, 'CLAUDE.md'), 'CHANGED');
    const resumed = await openSession({ cwd: sub, env, headless: true, flags: { resume: id }, stream: fakeStream([]) });
    await resumed.close();
    expect(Buffer.from(resumed.session.system).equals(Buffer.from(system))).toBe(true);
    expect(resumed.instructionFiles).toEqual(listed);
  });

  it('says at start which imports it refused', async () => {
    const base = tempDir();
    const project = path.join(base, 'project');
    mkdirSync(path.join(project, '.git'), { recursive: true });
    const agents = write(path.join(project, 'AGENTS.md'), '@../secret.md');
    write(path.join(base, 'secret.md'), 'SECRET');
    const opened = await openSession({
      cwd: project,
      env: { OUTRIDER_HOME: path.join(base, 'home'), ANTHROPIC_API_KEY: 'sk-ant-test' },
      headless: true,
      flags: {},
      stream: fakeStream([]),
    });
    await opened.close();
    expect(opened.session.system).not.toContain('SECRET');
    expect(opened.warnings).toContain(
      `${agents}: @../secret.md is not read: it leads outside the repository (to ${path.join(base, 'secret.md')})`,
    );
  });
});
