/**
 * An agent file's `skills`, `mcpServers`, `hooks` and `memory` in a real session: jobs run
 * through the job manager, the model is the mock provider spoken to by the real SDK client.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { recordTrustAnswer } from '../../../src/core/config/review-settings.js';
import { openSession, reviewSetup } from '../../../src/core/session/open-session.js';
import type { OpenedSession, SessionSetup } from '../../../src/core/session/opened-session.js';
import type { SessionEvent } from '../../../src/core/session/event-stream.js';
import { type MockProvider, type RecordedRequest, type Reply, startMockProvider } from '../../support/mock-provider.js';
import { exited, expectExited } from '../../support/process.js';
import { type TestDirs, testDirs } from '../../support/test-session.js';
import { until } from '../../support/until.js';

const JOB_SERVER = path.resolve(import.meta.dirname, '../../fixtures/mcp/job-server.mjs');

let mock: MockProvider;
beforeAll(async () => {
  mock = await startMockProvider();
});
afterAll(() => mock.close());
const opened: OpenedSession[] = [];
const pids: number[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((o) => o.close()));
  for (const pid of pids.splice(0)) if (!exited(pid)) process.kill(pid, 'SIGKILL');
  mock.reset();
});

const isChild = (r: RecordedRequest) => JSON.stringify(r.body.system).includes('You are a sub-agent');
const system = (r: RecordedRequest) => JSON.stringify(r.body.system);
const toolNames = (r: RecordedRequest) => ((r.body.tools ?? []) as { name: string }[]).map((t) => t.name);
const lastText = (r: RecordedRequest) => JSON.stringify(r.body.messages.at(-1));
/** The text blocks of a request's last message, joined. */
const taskText = (r: RecordedRequest) =>
  (r.body.messages.at(-1).content as { type: string; text?: string }[]).map((b) => b.text ?? '').join('\n');
/** The text of the tool results of a request's last message. */
const results = (r: RecordedRequest) =>
  (r.body.messages.at(-1).content as { type: string; content: unknown }[])
    .filter((b) => b.type === 'tool_result')
    .map((b) => (typeof b.content === 'string' ? b.content : JSON.stringify(b.content)));

/**
 * The parent starts one `agent` job and may make `parentCall` first; the child makes `childCall`
 * (when given) and then answers.
 */
function script(options: { agent: string; childCall?: Reply['toolCalls']; parentCall?: Reply['toolCalls'] }) {
  mock.respond((request): Reply => {
    const answered = lastText(request).includes('tool_result');
    if (isChild(request)) return !answered && options.childCall ? { toolCalls: options.childCall } : { text: 'child report' };
    const parentRequests = mock.requests.filter((r) => !isChild(r)).length;
    if (parentRequests === 1 && options.parentCall) return { toolCalls: options.parentCall };
    if (!answered || (options.parentCall && parentRequests === 2)) {
      return { toolCalls: [{ name: 'agent_start', args: { task: 'do the job', agent: options.agent } }] };
    }
    return { text: 'done' };
  });
}

/** Writes an agent file: into the user's folder, or the project's `.claude/agents` (the repository's). */
function agentFile(dirs: TestDirs, name: string, frontMatter: string, where: 'user' | 'project' = 'user'): string {
  const folder = where === 'user' ? path.join(dirs.env.OUTRIDER_HOME, 'agents') : path.join(dirs.cwd, '.claude', 'agents');
  mkdirSync(folder, { recursive: true });
  const file = path.join(folder, `${name}.md`);
  writeFileSync(file, `---\nname: ${name}\ndescription: The ${name} agent.\n${frontMatter}---\nYou are ${name}.\n`);
  return file;
}

async function open(dirs: TestDirs, setup: Partial<SessionSetup> = {}) {
  const session = await openSession({
    ...dirs,
    env: { ...dirs.env, ANTHROPIC_BASE_URL: mock.anthropicBaseURL, HOME: path.dirname(dirs.cwd) },
    headless: true,
    flags: { permissionMode: 'yolo' },
    ...setup,
  });
  opened.push(session);
  const events: SessionEvent[] = [];
  session.events.subscribe(({ event }) => events.push(event));
  const run = async (prompt: string) => {
    await session.session.submit(prompt, new AbortController().signal);
    await session.waitForAgents(new AbortController().signal);
  };
  const warnings = () => events.flatMap((e) => (e.type === 'notice' && e.level === 'warn' ? [e.text] : []));
  return { session, run, warnings };
}

const children = () => mock.requests.filter(isChild);
const parents = () => mock.requests.filter((r) => !isChild(r));

describe('skills in an agent file', () => {
  it("puts the named skills' whole text in the job's first request, not the parent's; an unknown one is a warning", async () => {
    const dirs = testDirs();
    const skill = path.join(dirs.env.OUTRIDER_HOME, 'skills', 'release-notes');
    mkdirSync(skill, { recursive: true });
    writeFileSync(
      path.join(skill, 'SKILL.md'),
      '---\nname: release-notes\ndescription: Writing release notes.\n---\nGroup changes under Added, Fixed, Removed.\n',
    );
    const file = agentFile(dirs, 'writer', 'skills: [release-notes, no-such-skill]\n');
    script({ agent: 'writer' });
    const { session, run } = await open(dirs);
    await run('write the notes');

    expect(session.warnings).toContain(
      `${file}: skills: no skill named "no-such-skill" (skills here: release-notes); its jobs run without it`,
    );
    const [first] = children();
    expect(system(first!)).toContain('## Skill release-notes');
    expect(system(first!)).toContain('Group changes under Added, Fixed, Removed.');
    expect(parents().some((r) => system(r).includes('Group changes under'))).toBe(false);
    expect(session.jobs()[0]).toMatchObject({ state: 'done' });
  });
});

describe('mcpServers in an agent file', () => {
  it("starts an inline server for the job alone: its tools in the job's requests, not the parent's, stopped when the job ends", async () => {
    const dirs = testDirs();
    const pidFile = path.join(dirs.cwd, '..', 'server.pid');
    const entry = JSON.stringify({ command: process.execPath, args: [JOB_SERVER, pidFile, 'job server says hi'] });
    agentFile(dirs, 'tooled', `mcpServers:\n  - jobsrv: ${entry}\n`);
    script({ agent: 'tooled', childCall: [{ name: 'mcp__jobsrv__marker', args: {} }] });
    const { session, run } = await open(dirs);
    await run('use the server');

    const pid = Number(readFileSync(pidFile, 'utf8'));
    pids.push(pid);
    const [first, second] = children();
    expect(toolNames(first!)).toContain('mcp__jobsrv__marker');
    expect(results(second!)).toEqual(['job server says hi']);
    for (const parent of parents()) expect(toolNames(parent).filter((n) => n.startsWith('mcp__'))).toEqual([]);
    expect(session.jobs()[0]).toMatchObject({ state: 'done' });
    await expectExited(pid);
  });

  it('runs a command as argv, never through a shell: one that looks like an injection starts nothing', async () => {
    const dirs = testDirs();
    const planted = path.join(dirs.cwd, 'planted');
    const entry = JSON.stringify({ command: `sh -c 'touch ${planted}'; touch ${planted}` });
    agentFile(dirs, 'sly', `mcpServers:\n  - evil: ${entry}\n`);
    script({ agent: 'sly' });
    const { run, warnings } = await open(dirs);
    await run('go');

    expect(existsSync(planted)).toBe(false);
    expect(warnings().join('\n')).toMatch(/sub-1: MCP server "evil" of sly's definition did not start/);
    expect(taskText(children()[0]!)).toContain('Not available to you in this job');
  });

  it("does not start a repository's server in a folder that is not trusted, and tells the job why; --trust starts it", async () => {
    const dirs = testDirs();
    const pidFile = path.join(dirs.cwd, '..', 'server.pid');
    const entry = JSON.stringify({ command: process.execPath, args: [JOB_SERVER, pidFile] });
    agentFile(dirs, 'repo-agent', `mcpServers:\n  - jobsrv: ${entry}\n`, 'project');
    script({ agent: 'repo-agent' });
    const untrusted = await open(dirs);
    await untrusted.run('go');

    expect(existsSync(pidFile)).toBe(false);
    const [first] = children();
    expect(toolNames(first!)).not.toContain('mcp__jobsrv__marker');
    const why = `MCP server "jobsrv" of repo-agent's definition not started: the file is the repository's and this folder is not trusted`;
    expect(taskText(first!)).toContain(why);
    expect(untrusted.warnings().some((w) => w.startsWith(`sub-1: ${why}`))).toBe(true);

    mock.reset();
    script({ agent: 'repo-agent' });
    const trusted = await open(dirs, { trustProject: true });
    await trusted.run('go');
    expect(toolNames(children()[0]!)).toContain('mcp__jobsrv__marker');
    pids.push(Number(readFileSync(pidFile, 'utf8')));
  });
});

describe('hooks in an agent file', () => {
  it("blocks a tool in the job with its PreToolUse hook, and not in the parent; a repository's hooks need trust", async () => {
    const dirs = testDirs();
    const hooks = [
      'hooks:',
      '  PreToolUse:',
      '    - matcher: list_dir',
      '      hooks:',
      '        - type: command',
      '          command: "echo refused by the job hook >&2; exit 2"',
      '',
    ].join('\n');
    agentFile(dirs, 'guarded', hooks);
    agentFile(dirs, 'repo-guarded', hooks, 'project');
    const listDir = [{ name: 'list_dir', args: {} }];
    script({ agent: 'guarded', parentCall: listDir, childCall: listDir });
    const { run } = await open(dirs);
    await run('look');

    const parentResult = parents().find((r) => results(r).length && !lastText(r).includes('Sub-agent'));
    expect(results(parentResult!)[0]).not.toContain('refused by the job hook');
    expect(results(children()[1]!)[0]).toContain('refused by the job hook');

    mock.reset();
    script({ agent: 'repo-guarded', childCall: listDir });
    const untrusted = await open(dirs);
    await untrusted.run('look');
    const [first, second] = children();
    expect(taskText(first!)).toContain("the hooks of repo-guarded's definition do not run: the file is the repository's");
    expect(results(second!)[0]).not.toContain('refused by the job hook');
  });
});

describe("a repository's agent file in a folder the user trusted", () => {
  it('runs the hooks the user reviewed, and not those of a file changed since the review', async () => {
    const dirs = testDirs();
    const hooks = (text: string) =>
      `hooks:\n  PreToolUse: [{matcher: list_dir, hooks: [{type: command, command: "echo ${text} >&2; exit 2"}]}]\n`;
    agentFile(dirs, 'repo-guarded', hooks('reviewed hook'), 'project');
    const reviewed = recordTrustAnswer(reviewSetup({ cwd: dirs.cwd, env: dirs.env, flags: {} }), 'trusted');
    script({ agent: 'repo-guarded', childCall: [{ name: 'list_dir', args: {} }] });
    const trusted = await open(dirs, { review: reviewed });
    await trusted.run('look');
    expect(results(children()[1]!)[0]).toContain('reviewed hook');

    mock.reset();
    agentFile(dirs, 'repo-guarded', hooks('swapped hook'), 'project');
    script({ agent: 'repo-guarded', childCall: [{ name: 'list_dir', args: {} }] });
    const changed = await open(dirs, { review: reviewed });
    await changed.run('look');
    const [first, second] = children();
    expect(taskText(first!)).toContain('changed after this folder was trusted');
    expect(results(second!)[0]).not.toContain('swapped hook');
  });
});

describe('memory in an agent file', () => {
  it("puts MEMORY.md's first lines and the folder in the job's prompt, and lets its file tools write there alone", async () => {
    const dirs = testDirs();
    const folder = path.join(dirs.env.OUTRIDER_HOME, 'agent-memory', 'keeper');
    mkdirSync(folder, { recursive: true });
    const lines = Array.from({ length: 250 }, (_, i) => `note ${i + 1}`);
    writeFileSync(path.join(folder, 'MEMORY.md'), `The build uses make.\n${lines.join('\n')}\n`);
    agentFile(dirs, 'keeper', 'memory: user\n');
    script({
      agent: 'keeper',
      childCall: [
        { name: 'write_file', args: { path: path.join(folder, 'learned.md'), content: 'tests live in t/\n' } },
        { name: 'write_file', args: { path: 'relative.md', content: 'x' } },
        { name: 'write_file', args: { path: path.join(dirs.cwd, 'in-project.md'), content: 'x' } },
      ],
    });
    const { run } = await open(dirs);
    await run('remember things');

    const [first, second] = children();
    const prompt = system(first!);
    expect(prompt).toContain(`You have a memory folder, ${folder}`);
    expect(prompt).toContain('The build uses make.');
    expect(prompt).toContain('note 199');
    expect(prompt).not.toContain('note 200');
    expect(prompt).toContain('only its first 200 lines');
    expect(parents().some((r) => system(r).includes('The build uses make.'))).toBe(false);
    // The default read-only agent gains write_file for its folder only.
    expect(readFileSync(path.join(folder, 'learned.md'), 'utf8')).toBe('tests live in t/\n');
    const [, relative, project] = results(second!);
    expect(relative).toContain('Created');
    expect(existsSync(path.join(folder, 'relative.md'))).toBe(true);
    expect(project).toContain('is outside your memory folder');
    expect(existsSync(path.join(dirs.cwd, 'in-project.md'))).toBe(false);
  });

  it("keeps no memory in your home for a repository's agent in a folder that is not trusted, and says why", async () => {
    const dirs = testDirs();
    agentFile(dirs, 'repo-mem', 'tools: Read, Grep\nmemory: user\n', 'project');
    script({ agent: 'repo-mem', childCall: [{ name: 'write_file', args: { path: 'MEMORY.md', content: 'planted' } }] });
    const { run } = await open(dirs);
    await run('go');
    const [first, second] = children();
    expect(system(first!)).not.toContain('You have a memory folder');
    expect(taskText(first!)).toContain(
      "memory: user (a folder in your home) of repo-mem's definition: the file is the repository's",
    );
    expect(toolNames(first!)).not.toContain('write_file');
    expect(results(second!)[0]).not.toMatch(/^Created/);
    expect(existsSync(path.join(dirs.cwd, 'MEMORY.md'))).toBe(false);
    expect(existsSync(path.join(path.dirname(dirs.cwd), '.claude', 'agent-memory'))).toBe(false);
  });

  it("keeps a repository's agent's project memory in the project, under Claude Code's folder", async () => {
    const dirs = testDirs();
    agentFile(dirs, 'proj-mem', 'memory: project\n', 'project');
    script({ agent: 'proj-mem' });
    const { run } = await open(dirs);
    await run('go');
    const folder = path.join(dirs.cwd, '.claude', 'agent-memory', 'proj-mem');
    expect(system(children()[0]!)).toContain(`You have a memory folder, ${folder}`);
    await until(() => existsSync(folder), { what: 'the memory folder' });
  });
});
