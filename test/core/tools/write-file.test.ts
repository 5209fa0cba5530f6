import { existsSync, mkdirSync, readFileSync, symlinkSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Workspace } from '../../../src/core/tools/define.js';
import { makeWorkspace } from '../../../src/core/tools/paths.js';
import { writeFileTool } from '../../../src/core/tools/write-file.js';
import { type TempDir, run, tempDir } from './harness.js';

let dir: TempDir;
let outside: TempDir;
let workspace: Workspace;
beforeEach(() => {
  dir = tempDir();
  outside = tempDir('outrider-outside-');
  workspace = makeWorkspace(dir.root);
});
afterEach(() => {
  dir.cleanup();
  outside.cleanup();
});

const write = (input: unknown, ws = workspace) => run(writeFileTool, input, { workspace: ws });

describe('write_file', () => {
  it('creates a file and its parent directories', async () => {
    const out = await write({ path: 'src/deep/new.ts', content: 'one\ntwo\n' });
    expect(out).toEqual({ content: 'Created src/deep/new.ts (2 lines)' });
    expect(readFileSync(path.join(dir.root, 'src/deep/new.ts'), 'utf8')).toBe('one\ntwo\n');
  });

  it('overwrites a file and shows a diff', async () => {
    dir.write('a.txt', 'keep\nold\nkeep too\n');
    const out = await write({ path: 'a.txt', content: 'keep\nnew\nkeep too\n' });
    expect(out.content).toBe('Updated a.txt (+1 -1)\n@@ -1,3 +1,3 @@\n keep\n-old\n+new\n keep too');
    expect(readFileSync(path.join(dir.root, 'a.txt'), 'utf8')).toBe('keep\nnew\nkeep too\n');
  });

  it('says when the content was already there', async () => {
    dir.write('a.txt', 'same\n');
    expect((await write({ path: 'a.txt', content: 'same\n' })).content).toBe('a.txt already had this content; nothing changed.');
  });

  it('keeps a long diff short', async () => {
    dir.write('a.txt', 'x\n');
    const content = Array.from({ length: 200 }, (_, i) => `line ${i}`).join('\n');
    const out = await write({ path: 'a.txt', content });
    const lines = out.content.split('\n');
    expect(lines[0]).toBe('Updated a.txt (+200 -1)');
    expect(lines).toHaveLength(62);
    expect(lines.at(-1)).toMatch(/^… \d+ more diff lines not shown$/);
  });

  it('refuses to replace a directory', async () => {
    mkdirSync(path.join(dir.root, 'src'));
    expect(await write({ path: 'src', content: 'x' })).toEqual({ content: 'src is a directory; give a file path.', isError: true });
  });

  describe('refuses paths outside the workspace', () => {
    const refused = (out: { content: string; isError?: boolean }) => {
      expect(out.isError).toBe(true);
      expect(out.content).toContain('outside the workspace');
      expect(out.content).toContain('--add-dir <dir>');
    };

    it('through ..', async () => {
      const escape = path.relative(dir.root, path.join(outside.root, 'x.txt'));
      expect(escape.startsWith('..')).toBe(true);
      refused(await write({ path: escape, content: 'x' }));
      refused(await write({ path: '../x.txt', content: 'x' }));
      expect(existsSync(path.join(outside.root, 'x.txt'))).toBe(false);
      expect(existsSync(path.join(path.dirname(dir.root), 'x.txt'))).toBe(false);
    });

    it('as an absolute path', async () => {
      const target = path.join(outside.root, 'abs.txt');
      refused(await write({ path: target, content: 'x' }));
      expect(existsSync(target)).toBe(false);
    });

    it('through a symlink inside the workspace', async () => {
      symlinkSync(outside.root, path.join(dir.root, 'link'));
      refused(await write({ path: 'link/escaped.txt', content: 'x' }));
      expect(existsSync(path.join(outside.root, 'escaped.txt'))).toBe(false);
    });

    it('but allows a directory added with --add-dir', async () => {
      const widened = makeWorkspace(dir.root, [outside.root]);
      const target = path.join(outside.root, 'sub', 'ok.txt');
      const out = await write({ path: target, content: 'ok\n' }, widened);
      expect(out).toEqual({ content: `Created ${target} (1 line)` });
      expect(readFileSync(target, 'utf8')).toBe('ok\n');
    });
  });

  it('is a mutating tool that declares its path', () => {
    expect(writeFileTool.kind).toBe('mutating');
    expect(writeFileTool.paths?.({ path: 'a', content: '' })).toEqual(['a']);
  });
});
