import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MAX_SKILL_FILE_BYTES, type Skill, loadSkills, skillCatalogue, skillTool } from '../../../src/core/commands/skills.js';

let root: string;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'outrider-skills-'));
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

function write(file: string, text: string): string {
  const full = join(root, file);
  mkdirSync(join(full, '..'), { recursive: true });
  writeFileSync(full, text);
  return full;
}

const PDF =
  '---\nname: pdf\ndescription: Fill and read PDF forms. Use when the user gives a PDF.\n---\n# PDF\n\nRun scripts/fill.py.\n';
const run = async (tool: ReturnType<typeof skillTool>, name: string) => {
  const out = await tool.execute({ name }, { signal: new AbortController().signal, workspace: { root, extraDirs: [] } });
  return typeof out === 'string' ? { content: out } : out;
};

describe('skills', () => {
  it('loads SKILL.md from each skill folder; the tool returns the body and lists the other files', async () => {
    write('skills/pdf/SKILL.md', PDF);
    write('skills/pdf/scripts/fill.py', 'print(1)');
    write('skills/pdf/reference.md', 'fields');
    write('skills/notes/README.md', 'not a skill: no SKILL.md');
    const { skills, warnings } = loadSkills([{ dir: join(root, 'skills'), project: false }]);
    expect(warnings).toEqual([]);
    expect([...skills.keys()]).toEqual(['pdf']);
    const tool = skillTool(skills);
    expect(tool.kind).toBe('read-only');
    expect(tool.description).toContain('- pdf: Fill and read PDF forms. Use when the user gives a PDF.');
    const out = await run(tool, 'pdf');
    expect(out.isError).toBeUndefined();
    expect(out.content).toContain('# PDF\n\nRun scripts/fill.py.');
    expect(out.content).toContain('- reference.md\n- scripts/fill.py');
    expect(out.content).not.toContain('- SKILL.md');
  });

  it('refuses names that are paths, and an unknown skill names the ones there are', async () => {
    write('skills/pdf/SKILL.md', PDF);
    write('skills/evil/SKILL.md', '---\nname: ../../etc\ndescription: x\n---\nbody');
    const { skills, warnings } = loadSkills([{ dir: join(root, 'skills'), project: false }]);
    expect([...skills.keys()]).toEqual(['pdf']);
    expect(warnings[0]).toContain('name "../../etc": expected lowercase letters');
    const out = await run(skillTool(skills), '../../etc/passwd');
    expect(out).toEqual({ content: 'No skill named "../../etc/passwd". Skills: pdf.', isError: true });
  });

  it('skips a skill without a description, with bad YAML, or over the size cap, each with a warning', () => {
    write('skills/a/SKILL.md', '---\nname: a\n---\nbody');
    write('skills/b/SKILL.md', '---\ndescription: [unclosed\n---\nbody');
    write('skills/c/SKILL.md', `---\ndescription: big\n---\n${'x'.repeat(MAX_SKILL_FILE_BYTES)}`);
    const { skills, warnings } = loadSkills([{ dir: join(root, 'skills'), project: false }]);
    expect(skills.size).toBe(0);
    expect(warnings).toHaveLength(3);
    expect(warnings[0]).toMatch(/a\/SKILL\.md: description: required/);
    expect(warnings[1]).toMatch(/b\/SKILL\.md: line \d+: invalid YAML/);
    expect(warnings[2]).toMatch(/c\/SKILL\.md: \d+ bytes; SKILL\.md files over 256 KB are not read/);
  });

  it("does not read a project's skills folder that links out of the project, nor a skill linking out of it", () => {
    write('outside/stolen/SKILL.md', PDF);
    mkdirSync(join(root, 'proj/.claude'), { recursive: true });
    symlinkSync(join(root, 'outside'), join(root, 'proj/.claude/skills'));
    mkdirSync(join(root, 'proj/.outrider/skills'), { recursive: true });
    symlinkSync(join(root, 'outside/stolen'), join(root, 'proj/.outrider/skills/stolen'));
    const { skills, warnings } = loadSkills(
      [
        { dir: join(root, 'proj/.claude/skills'), project: true },
        { dir: join(root, 'proj/.outrider/skills'), project: true },
      ],
      { projectRoot: join(root, 'proj') },
    );
    expect(skills.size).toBe(0);
    expect(warnings.join('\n')).toMatch(/outside the project; its skills are not read/);
    expect(warnings.join('\n')).toMatch(/stolen: links outside its skills folder/);
  });

  it('keeps the catalogue within its budget however many skills there are', () => {
    const many: Skill[] = Array.from({ length: 500 }, (_, i) => ({
      name: `skill-${i}`,
      description: 'Does a thing. '.repeat(40),
      body: '',
      dir: root,
      path: '',
    }));
    const text = skillCatalogue(many, 3000);
    expect(Buffer.byteLength(text)).toBeLessThanOrEqual(3000 + 60);
    expect(text).toMatch(/…and \d+ more skills not listed\.$/);
    expect(text.startsWith('- skill-0: Does a thing.')).toBe(true);
  });
});
