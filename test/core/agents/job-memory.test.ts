import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  confinedTool,
  memoryFolder,
  memoryPrompt,
  reachingTool,
  readMemory,
  withMemoryFolder,
} from '../../../src/core/agents/job-memory.js';
import type { AgentDefinition } from '../../../src/core/agents/agent-definition.js';
import { makeWorkspace } from '../../../src/core/platform/paths.js';
import type { ToolContext } from '../../../src/core/tools/define.js';
import { writeFileTool } from '../../../src/core/tools/write-file.js';
import { readFileTool } from '../../../src/core/tools/read-file.js';

let root: string;
let project: string;
let places: { outriderHome: string; home: string };
beforeEach(() => {
  root = realpathSync(mkdtempSync(path.join(tmpdir(), 'outrider-memory-')));
  project = path.join(root, 'project');
  mkdirSync(project);
  places = { outriderHome: path.join(root, 'home', '.outrider'), home: path.join(root, 'home') };
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

const agent = (memory: AgentDefinition['memory'], source: AgentDefinition['source'] = 'user', name = 'keeper') => ({
  name,
  memory,
  source,
});
const ctx = (workspace = makeWorkspace(project)): ToolContext => ({ signal: new AbortController().signal, workspace });

describe('memoryFolder', () => {
  it("uses Claude Code's folders for a .claude file and outrider's for its own, and makes them", () => {
    const workspace = makeWorkspace(project);
    const cases: Array<[AgentDefinition['memory'], AgentDefinition['source'], string, boolean]> = [
      ['user', 'claude', path.join(root, 'home', '.claude', 'agent-memory', 'keeper'), true],
      ['project', 'claude', path.join(project, '.claude', 'agent-memory', 'keeper'), false],
      ['local', 'claude', path.join(project, '.claude', 'agent-memory-local', 'keeper'), false],
      ['user', 'user', path.join(root, 'home', '.outrider', 'agent-memory', 'keeper'), true],
      ['project', 'project', path.join(project, '.outrider', 'agent-memory', 'keeper'), false],
      ['local', 'user', path.join(project, '.outrider', 'agent-memory-local', 'keeper'), false],
    ];
    for (const [scope, source, dir, outside] of cases) {
      expect(memoryFolder(agent(scope, source), workspace, places)).toEqual({ dir, scope, outside });
      expect(existsSync(dir)).toBe(true);
    }
  });

  it('refuses a name that would leave the memory folder, whatever a definition holds', () => {
    for (const name of ['../../etc', '..', '.', 'a/b', '/abs', '', 'A']) {
      expect(memoryFolder(agent('user', 'user', name), makeWorkspace(project), places)).toEqual({
        error: `the agent name ${JSON.stringify(name)} cannot name a folder`,
      });
    }
    expect(existsSync(path.join(root, 'etc'))).toBe(false);
  });

  it("refuses a project's memory folder a link leads out of the project, and makes nothing there", () => {
    const elsewhere = path.join(root, 'elsewhere');
    mkdirSync(elsewhere);
    mkdirSync(path.join(project, '.claude'));
    symlinkSync(elsewhere, path.join(project, '.claude', 'agent-memory'));
    const result = memoryFolder(agent('project', 'claude'), makeWorkspace(project), places);
    expect(result).toEqual({
      error: `${path.join(project, '.claude', 'agent-memory', 'keeper')} leads outside the project (to ${path.join(elsewhere, 'keeper')})`,
    });
    expect(existsSync(path.join(elsewhere, 'keeper'))).toBe(false);
  });
});

describe('readMemory and memoryPrompt', () => {
  it('gives the first 200 lines of MEMORY.md, says when it was cut, and tells where the folder is', () => {
    const folder = memoryFolder(agent('user'), makeWorkspace(project), places);
    if ('error' in folder) throw new Error(folder.error);
    expect(memoryPrompt('keeper', folder)).toContain('It has no MEMORY.md yet.');
    writeFileSync(path.join(folder.dir, 'MEMORY.md'), Array.from({ length: 201 }, (_, i) => `line ${i + 1}`).join('\n'));
    const prompt = memoryPrompt('keeper', folder);
    expect(prompt).toContain(`You have a memory folder, ${folder.dir} (yours across every project)`);
    expect(prompt).toContain('line 200');
    expect(prompt).not.toContain('line 201');
    expect(prompt).toContain('only its first 200 lines; shorten it');
  });

  it('never reads a MEMORY.md that links out of the folder, nor one that is not a regular file', () => {
    const dir = path.join(root, 'mem');
    mkdirSync(dir);
    writeFileSync(path.join(root, 'secret'), 'TOKEN=abc');
    symlinkSync(path.join(root, 'secret'), path.join(dir, 'MEMORY.md'));
    expect(readMemory(dir)).toEqual({ note: 'MEMORY.md links out of the memory folder; it was not read' });
    rmSync(path.join(dir, 'MEMORY.md'));
    mkdirSync(path.join(dir, 'MEMORY.md'));
    expect(readMemory(dir).note).toMatch(/^MEMORY\.md cannot be read/);
    expect(readMemory(path.join(root, 'missing'))).toEqual({});
  });
});

describe('the memory tools', () => {
  it('a confined write_file writes in the folder alone: relative paths land there; outside and links out are refused', async () => {
    const dir = path.join(root, 'mem');
    mkdirSync(dir);
    symlinkSync(project, path.join(dir, 'link'));
    const tool = confinedTool(writeFileTool, dir);
    expect(tool.paths!({ path: 'notes.md', content: '' })).toEqual([path.join(dir, 'notes.md')]);
    expect(await tool.execute({ path: 'notes.md', content: 'a\n' }, ctx())).toMatch(/^Created/);
    expect(readFileSync(path.join(dir, 'notes.md'), 'utf8')).toBe('a\n');
    for (const escape of [path.join(project, 'x.md'), '../x.md', 'link/x.md', '/etc/passwd']) {
      const result = await tool.execute({ path: escape, content: 'x' }, ctx());
      expect(result).toEqual({
        content: `${escape} is outside your memory folder ${dir}: write_file reaches only that folder.`,
        isError: true,
      });
    }
    expect(existsSync(path.join(project, 'x.md'))).toBe(false);
    expect(existsSync(path.join(root, 'x.md'))).toBe(false);
  });

  it("a reaching tool keeps the workspace and adds the folder; the gate's workspace adds it only when outside", async () => {
    const dir = path.join(root, 'mem');
    mkdirSync(dir);
    writeFileSync(path.join(dir, 'MEMORY.md'), 'remembered\n');
    const reading = reachingTool(readFileTool, dir);
    expect(await reading.execute({ path: path.join(dir, 'MEMORY.md') }, ctx())).toContain('remembered');
    const write = reachingTool(writeFileTool, dir);
    expect(await write.execute({ path: path.join(dir, 'b.md'), content: 'b' }, ctx())).toMatch(/^Created/);
    expect(await write.execute({ path: path.join(root, 'c.md'), content: 'c' }, ctx())).toMatchObject({ isError: true });
    const workspace = makeWorkspace(project);
    expect(withMemoryFolder(workspace, { dir, scope: 'user', outside: true }).extraDirs).toEqual([dir]);
    expect(withMemoryFolder(workspace, { dir, scope: 'project', outside: false })).toBe(workspace);
  });
});
