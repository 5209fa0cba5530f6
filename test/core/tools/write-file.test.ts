import {
  accessSync,
  chmodSync,
  constants,
  existsSync,
  linkSync,
  lstatSync,
  mkdirSync,
  readFileSync,
  readdirSync,
  readlinkSync,
  statSync,
  symlinkSync,
} from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Workspace } from '../../../src/core/tools/define.js';
import { makeWorkspace } from '../../../src/core/platform/paths.js';
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

function canWrite(file: string): boolean {
  try {
    accessSync(file, constants.W_OK);
    return true;
  } catch {
    return false;
  }
}

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
    expect(await write({ path: 'src', content: 'x' })).toEqual({
      content: 'src is a directory; give a file path.',
      isError: true,
    });
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

    it('through a dangling symlink to a new outside file', async () => {
      symlinkSync(path.join(outside.root, 'new.txt'), path.join(dir.root, 'link'));
      refused(await write({ path: 'link', content: 'owned' }));
      expect(existsSync(path.join(outside.root, 'new.txt'))).toBe(false);
    });

    it('through a chain of symlinks ending outside', async () => {
      symlinkSync('second', path.join(dir.root, 'first'));
      symlinkSync(path.join(outside.root, 'new.txt'), path.join(dir.root, 'second'));
      refused(await write({ path: 'first', content: 'owned' }));
      expect(existsSync(path.join(outside.root, 'new.txt'))).toBe(false);
    });

    it('through a dangling symlink used as a directory name', async () => {
      symlinkSync(path.join(outside.root, 'newdir'), path.join(dir.root, 'd'));
      refused(await write({ path: 'd/x.txt', content: 'owned' }));
      refused(await write({ path: 'd/deeper/x.txt', content: 'owned' }));
      expect(existsSync(path.join(outside.root, 'newdir'))).toBe(false);
    });

    it('through a symlink loop, without hanging', async () => {
      symlinkSync('b', path.join(dir.root, 'a'));
      symlinkSync('a', path.join(dir.root, 'b'));
      expect(await write({ path: 'a', content: 'x' })).toEqual({
        content: 'a has no real path: its symbolic links form a loop; fix or remove them.',
        isError: true,
      });
    });

    it('but allows a directory added with --add-dir', async () => {
      const widened = makeWorkspace(dir.root, [outside.root]);
      const target = path.join(outside.root, 'sub', 'ok.txt');
      const out = await write({ path: target, content: 'ok\n' }, widened);
      expect(out).toEqual({ content: `Created ${target} (1 line)` });
      expect(readFileSync(target, 'utf8')).toBe('ok\n');
    });
  });

  describe('links inside the workspace', () => {
    it('writes through a symlink to an inside file and keeps the link', async () => {
      dir.write('real.txt', 'old\n');
      symlinkSync('real.txt', path.join(dir.root, 'alias'));
      await write({ path: 'alias', content: 'new\n' });
      expect(readFileSync(path.join(dir.root, 'real.txt'), 'utf8')).toBe('new\n');
      expect(readlinkSync(path.join(dir.root, 'alias'))).toBe('real.txt');
    });

    it('creates the target of a dangling link that stays inside', async () => {
      symlinkSync('made.txt', path.join(dir.root, 'alias'));
      expect((await write({ path: 'alias', content: 'x\n' })).isError).toBeUndefined();
      expect(readFileSync(path.join(dir.root, 'made.txt'), 'utf8')).toBe('x\n');
      expect(lstatSync(path.join(dir.root, 'alias')).isSymbolicLink()).toBe(true);
    });

    it('replaces a hard link to an outside file instead of writing through it', async () => {
      const victim = outside.write('hard.txt', 'outside content\n');
      linkSync(victim, path.join(dir.root, 'h'));
      const out = await write({ path: 'h', content: 'new\n' });
      expect(out.isError).toBeUndefined();
      expect(readFileSync(victim, 'utf8')).toBe('outside content\n');
      expect(readFileSync(path.join(dir.root, 'h'), 'utf8')).toBe('new\n');
    });
  });

  describe('writes atomically', () => {
    it("keeps the file's mode", async () => {
      const file = dir.write('run.sh', 'echo old\n');
      chmodSync(file, 0o751);
      await write({ path: 'run.sh', content: 'echo new\n' });
      expect(statSync(file).mode & 0o7777).toBe(0o751);
      const secret = dir.write('secret.txt', 'a\n');
      chmodSync(secret, 0o600);
      await write({ path: 'secret.txt', content: 'b\n' });
      expect(statSync(secret).mode & 0o7777).toBe(0o600);
    });

    it('gives a new file the usual mode', async () => {
      await write({ path: 'fresh.txt', content: 'x' });
      const umask = process.umask();
      expect(statSync(path.join(dir.root, 'fresh.txt')).mode & 0o777).toBe(0o666 & ~umask);
    });

    it('replaces the file rather than rewriting it in place, leaving no temporary file', async () => {
      const file = dir.write('a.txt', 'old\n');
      const before = statSync(file).ino;
      await write({ path: 'a.txt', content: 'new\n' });
      expect(statSync(file).ino).not.toBe(before);
      expect(readdirSync(dir.root)).toEqual(['a.txt']);
    });

    it('writes a read-only file exactly when writing it in place could (root can, others cannot)', async () => {
      const file = dir.write('locked.txt', 'old\n');
      chmodSync(file, 0o444);
      const writable = canWrite(file);
      const out = await write({ path: 'locked.txt', content: 'new\n' });
      if (writable) {
        expect(out.isError).toBeUndefined();
        expect(readFileSync(file, 'utf8')).toBe('new\n');
        expect(statSync(file).mode & 0o7777).toBe(0o444);
      } else {
        expect(out).toEqual({
          content: 'locked.txt is not writable (mode r--r--r--); change its permissions first.',
          isError: true,
        });
        expect(readFileSync(file, 'utf8')).toBe('old\n');
      }
    });
  });

  it('is a mutating tool that declares its path', () => {
    expect(writeFileTool.kind).toBe('mutating');
    expect(writeFileTool.paths?.({ path: 'a', content: '' })).toEqual(['a']);
  });
});
