import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { importTokens } from '../../../src/core/session/instruction-imports.js';
import {
  INSTRUCTION_LIMITS,
  type InstructionSources,
  loadInstructionFiles,
  repositoryRoot,
} from '../../../src/core/session/instruction-files.js';

function tempDir(): string {
  return realpathSync(mkdtempSync(path.join(os.tmpdir(), 'outrider-instructions-')));
}

function write(file: string, content: string | Buffer): string {
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, content);
  return file;
}

/** A repository `repo/` with a sub-folder `repo/pkg/app`, a home with `.outrider`, and the sources for a run in `cwd`. */
function layout(options: { git?: boolean } = {}) {
  const base = tempDir();
  const repo = path.join(base, 'repo');
  const app = path.join(repo, 'pkg', 'app');
  const home = path.join(base, 'home');
  mkdirSync(app, { recursive: true });
  if (options.git !== false) mkdirSync(path.join(repo, '.git'));
  const sources = (cwd = app): InstructionSources => ({ cwd, outriderHome: path.join(home, '.outrider'), home });
  return { base, repo, app, home, sources };
}

const paths = (loaded: ReturnType<typeof loadInstructionFiles>) => loaded.files.map((f) => f.path);

describe('which files are read', () => {
  it('reads from the repository root down to the working directory: AGENTS.md, CLAUDE.md and CLAUDE.local.md at each level', () => {
    const { repo, app, sources } = layout();
    const root = write(path.join(repo, 'AGENTS.md'), 'ROOT RULES');
    const rootClaude = write(path.join(repo, 'CLAUDE.md'), 'ROOT CLAUDE RULES');
    const local = write(path.join(repo, 'CLAUDE.local.md'), 'MY OWN NOTES');
    const pkg = write(path.join(repo, 'pkg', 'CLAUDE.md'), 'PKG RULES (Claude only)');
    const own = write(path.join(app, 'AGENTS.md'), 'APP RULES');
    const loaded = loadInstructionFiles(sources());
    expect(loaded.files).toEqual([
      { path: root, content: 'ROOT RULES' },
      { path: rootClaude, content: 'ROOT CLAUDE RULES' },
      { path: local, content: 'MY OWN NOTES' },
      { path: pkg, content: 'PKG RULES (Claude only)' },
      { path: own, content: 'APP RULES' },
    ]);
    expect(loaded.info.map((i) => [i.path, i.scope, i.size, i.included, i.notes])).toEqual([
      [root, 'project', 10, 10, []],
      [rootClaude, 'project', 17, 17, []],
      [local, 'project', 12, 12, []],
      [pkg, 'project', 23, 23, []],
      [own, 'project', 9, 9, []],
    ]);
    expect(loaded.warnings).toEqual([]);
  });

  it('a CLAUDE.md that imports the AGENTS.md beside it (a common bridge) reads that file once', () => {
    const { repo, sources } = layout();
    const agents = write(path.join(repo, 'AGENTS.md'), 'SHARED RULES');
    const claude = write(path.join(repo, 'CLAUDE.md'), '@AGENTS.md');
    const loaded = loadInstructionFiles(sources(repo));
    expect(loaded.files).toEqual([
      { path: agents, content: 'SHARED RULES' },
      { path: claude, content: '@AGENTS.md' },
    ]);
  });

  it("CLAUDE.local.md is the repository's file like the others: a link out of it is refused", () => {
    const { base, repo, sources } = layout();
    const secret = write(path.join(base, 'secret.txt'), 'TOKEN=1');
    symlinkSync(secret, path.join(repo, 'CLAUDE.local.md'));
    const loaded = loadInstructionFiles(sources(repo));
    expect(loaded.files).toEqual([]);
    expect(loaded.warnings[0]).toContain('CLAUDE.local.md: not read: it leads outside the repository');
  });

  it('outside a repository reads only the working directory', () => {
    const { repo, app, sources } = layout({ git: false });
    write(path.join(repo, 'AGENTS.md'), 'not a repository root');
    const own = write(path.join(app, 'CLAUDE.md'), 'here');
    expect(paths(loadInstructionFiles(sources()))).toEqual([own]);
    expect(repositoryRoot(app)).toBeUndefined();
  });

  it("reads the user's ~/.outrider/AGENTS.md, then ~/.claude/CLAUDE.md; none without HOME", () => {
    const { repo, home, sources } = layout();
    const project = write(path.join(repo, 'AGENTS.md'), 'project');
    const claude = write(path.join(home, '.claude', 'CLAUDE.md'), 'claude user');
    expect(paths(loadInstructionFiles(sources(repo)))).toEqual([claude, project]);
    const own = write(path.join(home, '.outrider', 'AGENTS.md'), 'outrider user');
    const loaded = loadInstructionFiles(sources(repo));
    expect(paths(loaded)).toEqual([own, claude, project]);
    expect(loaded.info[0]).toMatchObject({ scope: 'user' });
    expect(loaded.info[1]).toMatchObject({ scope: 'user' });
    // OUTRIDER_HOME elsewhere, no HOME: only outrider's own folder is looked at.
    const elsewhere = path.join(home, 'elsewhere');
    expect(paths(loadInstructionFiles({ cwd: repo, outriderHome: elsewhere }))).toEqual([project]);
  });

  it('skips a folder or FIFO named AGENTS.md (no hang) and takes CLAUDE.md there; an empty AGENTS.md is noted', () => {
    const { repo, app, sources } = layout();
    execFileSync('mkfifo', [path.join(repo, 'AGENTS.md')]);
    const claude = write(path.join(repo, 'CLAUDE.md'), 'from CLAUDE.md');
    mkdirSync(path.join(repo, 'pkg', 'AGENTS.md'));
    const empty = write(path.join(app, 'AGENTS.md'), ' \n\n');
    const beside = write(path.join(app, 'CLAUDE.md'), 'read too: beside AGENTS.md');
    const loaded = loadInstructionFiles(sources());
    expect(paths(loaded)).toEqual([claude, beside]);
    expect(loaded.info.at(-2)).toEqual({ path: empty, scope: 'project', size: 3, included: 0, notes: ['empty'] });
  });

  it('drops a BOM, reads CRLF as LF, and trims', () => {
    const { app, sources } = layout();
    write(path.join(app, 'AGENTS.md'), Buffer.from('\uFEFF\r\n# Rules\r\n\r\n- tabs\r\n', 'utf8'));
    expect(loadInstructionFiles(sources()).files[0]!.content).toBe('# Rules\n\n- tabs');
  });

  it('refuses a level file that is a link out of the repository', () => {
    const { base, repo, sources } = layout();
    const secret = write(path.join(base, 'secret.txt'), 'AWS_SECRET=hunter2');
    symlinkSync(secret, path.join(repo, 'AGENTS.md'));
    const loaded = loadInstructionFiles(sources(repo));
    expect(loaded.files).toEqual([]);
    expect(loaded.warnings).toEqual([
      `${path.join(repo, 'AGENTS.md')}: not read: it leads outside the repository (to ${secret})`,
    ]);
    expect(loaded.info[0]).toMatchObject({ included: 0, notes: [`not read: it leads outside the repository (to ${secret})`] });
  });

  it('reads a file once when two levels or names lead to it (AGENTS.md linked to CLAUDE.md)', () => {
    const { repo, sources } = layout();
    const claude = write(path.join(repo, 'CLAUDE.md'), 'shared');
    symlinkSync(claude, path.join(repo, 'AGENTS.md'));
    expect(loadInstructionFiles(sources(repo)).files).toEqual([{ path: path.join(repo, 'AGENTS.md'), content: 'shared' }]);
  });
});

describe('@path imports', () => {
  it('follows imports relative to the importing file, each after its importer, nested', () => {
    const { repo, sources } = layout();
    const root = write(
      path.join(repo, 'CLAUDE.md'),
      'See @docs/style.md for style and @AGENTS-extra.md.\nAlso @./docs/testing.md',
    );
    const style = write(path.join(repo, 'docs', 'style.md'), 'STYLE, and @naming.md');
    const naming = write(path.join(repo, 'docs', 'naming.md'), 'NAMING');
    const extra = write(path.join(repo, 'AGENTS-extra.md'), 'EXTRA');
    const testing = write(path.join(repo, 'docs', 'testing.md'), 'TESTING, and again @style.md');
    const loaded = loadInstructionFiles(sources(repo));
    expect(loaded.files.map((f) => [f.path, f.importedBy])).toEqual([
      [root, undefined],
      [style, root],
      [naming, style],
      [extra, root],
      [testing, root],
    ]);
    // The importing text is kept as written.
    expect(loaded.files[0]!.content).toContain('See @docs/style.md');
    expect(loaded.warnings).toEqual([]);
  });

  it('never imports from outside the repository: ../, absolute paths, ~/ and links', () => {
    const { base, repo, home, sources } = layout();
    write(path.join(base, 'outside.md'), 'OUTSIDE');
    write(path.join(home, 'private.md'), 'PRIVATE');
    write(path.join(base, 'linked-target.md'), 'LINKED');
    symlinkSync(path.join(base, 'linked-target.md'), path.join(repo, 'link.md'));
    const agents = write(
      path.join(repo, 'AGENTS.md'),
      `@../outside.md\n@${path.join(base, 'outside.md')}\n@~/private.md\n@link.md\n`,
    );
    const loaded = loadInstructionFiles(sources(repo));
    expect(loaded.files.map((f) => f.path)).toEqual([agents]);
    expect(loaded.files.map((f) => f.content).join()).not.toMatch(/OUTSIDE|PRIVATE|LINKED/);
    expect(loaded.warnings).toEqual([
      `${agents}: @../outside.md is not read: it leads outside the repository (to ${path.join(base, 'outside.md')})`,
      `${agents}: @~/private.md is not read: it leads outside the repository (to ${path.join(home, 'private.md')})`,
      `${agents}: @link.md is not read: it leads outside the repository (to ${path.join(base, 'linked-target.md')})`,
    ]);
    expect(loaded.info[0]!.notes).toHaveLength(3);
  });

  it("lets the user's file import from the home folder (~/ or relative), and nowhere else", () => {
    const { base, repo, home, sources } = layout();
    const notes = write(path.join(home, 'notes', 'style.md'), 'MY STYLE');
    write(path.join(base, 'etc.md'), 'SYSTEM');
    const user = write(path.join(home, '.outrider', 'AGENTS.md'), '@~/notes/style.md\n@../../etc.md');
    const loaded = loadInstructionFiles(sources(repo));
    expect(loaded.files.map((f) => [f.path, f.importedBy])).toEqual([
      [user, undefined],
      [notes, user],
    ]);
    expect(loaded.warnings).toEqual([
      `${user}: @../../etc.md is not read: it leads outside your home folder (to ${path.join(base, 'etc.md')})`,
    ]);
  });

  it('refuses a cycle with a note, and imports a file only once', () => {
    const { repo, sources } = layout();
    const a = write(path.join(repo, 'AGENTS.md'), 'A imports @b.md and @c.md');
    const b = write(path.join(repo, 'b.md'), 'B imports @AGENTS.md and @c.md');
    const c = write(path.join(repo, 'c.md'), 'C imports @c.md');
    const loaded = loadInstructionFiles(sources(repo));
    expect(paths(loaded)).toEqual([a, b, c]);
    expect(loaded.warnings).toEqual([
      `${b}: @AGENTS.md is not imported: it would import ${a} again (a cycle)`,
      `${c}: @c.md is not imported: it would import ${c} again (a cycle)`,
    ]);
  });

  it(`follows imports ${INSTRUCTION_LIMITS.importDepth} deep and no deeper`, () => {
    const { repo, sources } = layout();
    const depth = INSTRUCTION_LIMITS.importDepth;
    const files = [write(path.join(repo, 'AGENTS.md'), '@level1.md')];
    for (let i = 1; i <= depth + 1; i += 1) files.push(write(path.join(repo, `level${i}.md`), `level ${i} @level${i + 1}.md`));
    const loaded = loadInstructionFiles(sources(repo));
    expect(paths(loaded)).toEqual(files.slice(0, depth + 1));
    expect(loaded.warnings).toEqual([
      `${files[depth]}: @level${depth + 1}.md is not imported: imports nest at most ${depth} deep`,
    ]);
  });

  it('ignores @ in code blocks and spans, in e-mail addresses and mentions; notes a missing .md', () => {
    const { repo, sources } = layout();
    write(path.join(repo, 'types', 'node'), 'a file that must not be imported');
    write(path.join(repo, 'real.md'), 'REAL');
    const agents = write(
      path.join(repo, 'AGENTS.md'),
      [
        'Install with `npm i @types/node`, ask @octocat or mail me@example.com.',
        '```sh',
        'npm i @types/node',
        '```',
        '~~~',
        '@types/node',
        '~~~',
        'Read @real.md, and @missing.md.',
      ].join('\n'),
    );
    const loaded = loadInstructionFiles(sources(repo));
    expect(paths(loaded)).toEqual([agents, path.join(repo, 'real.md')]);
    expect(loaded.info[0]!.notes).toEqual(['@missing.md is not imported: no such file']);
    expect(loaded.warnings).toEqual([]);
  });
});

describe('budgets', () => {
  it('cuts a file over the per-file budget, saying so in the prompt and in the list', () => {
    const { repo, sources } = layout();
    const big = write(path.join(repo, 'AGENTS.md'), `${'a'.repeat(40 * 1024)}TAIL`);
    const loaded = loadInstructionFiles(sources(repo));
    const content = loaded.files[0]!.content;
    expect(content.startsWith('a'.repeat(32 * 1024))).toBe(true);
    expect(content).not.toContain('TAIL');
    expect(content.endsWith(`\n[… ${big} is cut at 32.0 KB of 40.0 KB: one instruction file is limited to 32.0 KB]`)).toBe(true);
    expect(loaded.info[0]).toMatchObject({
      size: 40 * 1024 + 4,
      notes: ['cut at 32.0 KB of 40.0 KB: one instruction file is limited to 32.0 KB'],
    });
  });

  it('never splits a character when it cuts', () => {
    const { repo, sources } = layout();
    write(path.join(repo, 'AGENTS.md'), `${'a'.repeat(32 * 1024 - 1)}é and more`);
    expect(loadInstructionFiles(sources(repo)).files[0]!.content).toMatch(/^a+\n\[… /);
  });

  it('cuts at the total budget, then leaves later files out with a line the model can act on', () => {
    const { repo, app, sources } = layout();
    const limits = { perFileBytes: 100, totalBytes: 150, importDepth: 5 };
    write(path.join(repo, 'AGENTS.md'), 'r'.repeat(100));
    const pkg = write(path.join(repo, 'pkg', 'AGENTS.md'), 'p'.repeat(80));
    const own = write(path.join(app, 'AGENTS.md'), 'app rules');
    const loaded = loadInstructionFiles(sources(), limits);
    expect(loaded.files[1]!.content).toBe(
      `${'p'.repeat(50)}\n[… ${pkg} is cut at 50 B of 80 B: instruction files are limited to 150 B in all]`,
    );
    expect(loaded.files[2]).toEqual({
      path: own,
      content: '[… left out: instruction files are limited to 150 B in all; read the file if you need it]',
    });
    expect(loaded.info.map((i) => [i.size, i.included > 0])).toEqual([
      [100, true],
      [80, true],
      [9, false],
    ]);
    expect(loaded.warnings).toEqual([`instruction files left out, over the 150 B budget: ${own}`]);
  });

  it('gives at most 10 left-out files a line in the prompt, and says so once', () => {
    const { repo, sources } = layout();
    const names = Array.from({ length: 30 }, (_, i) => `f${String(i).padStart(2, '0')}.md`);
    const imports = names.map((n) => `@${n}`).join(' ');
    write(path.join(repo, 'AGENTS.md'), imports);
    for (const name of names) write(path.join(repo, name), 'x'.repeat(10));
    // The importing file takes the whole budget: every import is left out.
    const loaded = loadInstructionFiles(sources(repo), { perFileBytes: 1000, totalBytes: imports.length, importDepth: 5 });
    expect(loaded.files).toHaveLength(1 + 10);
    expect(loaded.files.slice(1).every((f) => f.content.startsWith('[… left out'))).toBe(true);
    expect(loaded.info.filter((i) => i.notes.some((n) => n.startsWith('left out')))).toHaveLength(30);
    expect(loaded.warnings).toEqual([
      `instruction files left out, over the ${imports.length} B budget: ${names
        .slice(0, 3)
        .map((n) => path.join(repo, n))
        .join(', ')} and 27 more`,
    ]);
  });

  it('reads the head of a huge file only', () => {
    const { repo, sources } = layout();
    write(path.join(repo, 'AGENTS.md'), Buffer.alloc(20 * 1024 * 1024, 'x'));
    const loaded = loadInstructionFiles(sources(repo));
    expect(loaded.info[0]!.size).toBe(20 * 1024 * 1024);
    expect(loaded.files[0]!.content.length).toBeLessThan(33 * 1024);
  });
});

describe('importTokens', () => {
  it.each([
    ['@a.md', ['a.md']],
    ['see @docs/x.md, then (@y.md)', ['docs/x.md,', 'y.md']],
    ['@~/notes.md and @../up.md and @/abs/p.md', ['~/notes.md', '../up.md', '/abs/p.md']],
    ['@my\\ file.md', ['my file.md']],
    ['a@b.md `@c.md` ``@d.md `x` ``', []],
    ['```\n@a.md\n```\n@b.md', ['b.md']],
    ['````\n```\n@a.md\n````\n@b.md', ['b.md']],
    ['~~~\n@a.md', []],
  ])('%j → %j', (text, expected) => {
    expect(importTokens(text)).toEqual(expected);
  });
});
