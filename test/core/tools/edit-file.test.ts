import { chmodSync, existsSync, linkSync, mkdirSync, readFileSync, statSync, symlinkSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Workspace } from '../../../src/core/tools/define.js';
import { countOccurrences, editFileTool } from '../../../src/core/tools/edit-file.js';
import { makeWorkspace } from '../../../src/core/platform/paths.js';
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

const edit = (input: unknown, ws = workspace) => run(editFileTool, input, { workspace: ws });
const contentOf = (rel: string) => readFileSync(path.join(dir.root, rel), 'utf8');

describe('edit_file', () => {
  it('replaces a unique string and shows the diff', async () => {
    dir.write('src/a.ts', 'const a = 1;\nconst b = 2;\nconst c = 3;\n');
    const out = await edit({ path: 'src/a.ts', old_string: 'const b = 2;', new_string: 'const b = 20;\nconst bb = 21;' });
    expect(out.content).toBe(
      'Edited src/a.ts: 1 replacement (+2 -1)\n@@ -1,3 +1,4 @@\n const a = 1;\n-const b = 2;\n+const b = 20;\n+const bb = 21;\n const c = 3;',
    );
    expect(out.isError).toBeUndefined();
    expect(contentOf('src/a.ts')).toBe('const a = 1;\nconst b = 20;\nconst bb = 21;\nconst c = 3;\n');
  });

  it('says old_string was not found, with a hint', async () => {
    dir.write('a.ts', '  indented\n');
    const out = await edit({ path: 'a.ts', old_string: 'indented\n  ', new_string: 'x' });
    expect(out).toEqual({
      content: 'old_string was not found in a.ts. Read the file first; whitespace and indentation must match exactly.',
      isError: true,
    });
    expect(contentOf('a.ts')).toBe('  indented\n');
  });

  it('refuses an ambiguous match, naming the count', async () => {
    dir.write('a.ts', 'x = 1\nx = 1\nx = 1\n');
    const out = await edit({ path: 'a.ts', old_string: 'x = 1', new_string: 'x = 2' });
    expect(out).toEqual({
      content:
        'old_string was found 3 times in a.ts; include more surrounding lines to make it unique, or set replace_all to true.',
      isError: true,
    });
    expect(contentOf('a.ts')).toBe('x = 1\nx = 1\nx = 1\n');
  });

  it('replaces every occurrence with replace_all', async () => {
    dir.write('a.ts', 'x = 1\ny\nx = 1\n');
    const out = await edit({ path: 'a.ts', old_string: 'x = 1', new_string: 'x = 2', replace_all: true });
    expect(out.content.split('\n')[0]).toBe('Edited a.ts: 2 replacements (+2 -2)');
    expect(contentOf('a.ts')).toBe('x = 2\ny\nx = 2\n');
  });

  it('keeps $ patterns in new_string literal', async () => {
    dir.write('a.ts', 'price\n');
    await edit({ path: 'a.ts', old_string: 'price', new_string: "$& $1 $$ $'" });
    expect(contentOf('a.ts')).toBe("$& $1 $$ $'\n");
  });

  it('refuses identical strings and an empty old_string', async () => {
    dir.write('a.ts', 'a\n');
    expect(await edit({ path: 'a.ts', old_string: 'a', new_string: 'a' })).toEqual({
      content: 'old_string and new_string are identical; there is nothing to change.',
      isError: true,
    });
    expect(await edit({ path: 'a.ts', old_string: '', new_string: 'b' })).toEqual({
      content: 'old_string is empty; to create or overwrite a file use write_file.',
      isError: true,
    });
  });

  it('names a missing file and a directory', async () => {
    expect(await edit({ path: 'nope.ts', old_string: 'a', new_string: 'b' })).toEqual({
      content: 'File not found: nope.ts. Use write_file to create it.',
      isError: true,
    });
    mkdirSync(path.join(dir.root, 'src'));
    expect(await edit({ path: 'src', old_string: 'a', new_string: 'b' })).toEqual({
      content: 'src is a directory, not a file.',
      isError: true,
    });
  });

  it('edits a CRLF file given LF lines, as read_file shows them', async () => {
    dir.write('win.txt', 'one\r\ntwo\r\nthree\r\n');
    const out = await edit({ path: 'win.txt', old_string: 'one\ntwo', new_string: 'one\n2' });
    expect(out.isError).toBeUndefined();
    expect(contentOf('win.txt')).toBe('one\r\n2\r\nthree\r\n');
  });

  describe('refuses paths outside the workspace', () => {
    const refused = (out: { content: string; isError?: boolean }) => {
      expect(out.isError).toBe(true);
      expect(out.content).toContain('outside the workspace');
      expect(out.content).toContain('--add-dir <dir>');
    };

    it('through .. and as an absolute path', async () => {
      const target = outside.write('victim.txt', 'secret\n');
      refused(await edit({ path: path.relative(dir.root, target), old_string: 'secret', new_string: 'x' }));
      refused(await edit({ path: target, old_string: 'secret', new_string: 'x' }));
      refused(await edit({ path: '../victim.txt', old_string: 'secret', new_string: 'x' }));
      expect(readFileSync(target, 'utf8')).toBe('secret\n');
    });

    it('through a symlinked file or directory inside the workspace', async () => {
      const target = outside.write('victim.txt', 'secret\n');
      symlinkSync(target, path.join(dir.root, 'file-link'));
      symlinkSync(outside.root, path.join(dir.root, 'dir-link'));
      refused(await edit({ path: 'file-link', old_string: 'secret', new_string: 'x' }));
      refused(await edit({ path: 'dir-link/victim.txt', old_string: 'secret', new_string: 'x' }));
      expect(readFileSync(target, 'utf8')).toBe('secret\n');
    });

    it('but allows a directory added with --add-dir', async () => {
      const target = outside.write('lib.txt', 'old\n');
      const out = await edit({ path: target, old_string: 'old', new_string: 'new' }, makeWorkspace(dir.root, [outside.root]));
      expect(out.content.split('\n')[0]).toBe(`Edited ${target}: 1 replacement (+1 -1)`);
      expect(readFileSync(target, 'utf8')).toBe('new\n');
      expect(existsSync(target)).toBe(true);
    });
  });

  it('replaces a hard link to an outside file instead of editing through it', async () => {
    const victim = outside.write('hard.txt', 'secret = 1\n');
    linkSync(victim, path.join(dir.root, 'h'));
    const out = await edit({ path: 'h', old_string: 'secret = 1', new_string: 'secret = 2' });
    expect(out.content.split('\n')[0]).toBe('Edited h: 1 replacement (+1 -1)');
    expect(readFileSync(victim, 'utf8')).toBe('secret = 1\n');
    expect(contentOf('h')).toBe('secret = 2\n');
  });

  it("keeps the file's mode", async () => {
    const file = dir.write('run.sh', 'echo old\n');
    chmodSync(file, 0o750);
    await edit({ path: 'run.sh', old_string: 'old', new_string: 'new' });
    expect(statSync(file).mode & 0o7777).toBe(0o750);
    expect(contentOf('run.sh')).toBe('echo new\n');
  });

  it('refuses a dangling symlink to an outside file', async () => {
    symlinkSync(path.join(outside.root, 'gone.txt'), path.join(dir.root, 'link'));
    const out = await edit({ path: 'link', old_string: 'a', new_string: 'b' });
    expect(out.isError).toBe(true);
    expect(out.content).toContain('outside the workspace');
    expect(existsSync(path.join(outside.root, 'gone.txt'))).toBe(false);
  });

  it('counts non-overlapping occurrences', () => {
    expect(countOccurrences('aaaa', 'aa')).toBe(2);
    expect(countOccurrences('abc', 'd')).toBe(0);
  });
});
