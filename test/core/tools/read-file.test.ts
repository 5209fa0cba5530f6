import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Workspace } from '../../../src/core/tools/define.js';
import { makeWorkspace } from '../../../src/core/platform/paths.js';
import { readFileTool } from '../../../src/core/tools/read-file.js';
import { type TempDir, run, tempDir } from './harness.js';

let dir: TempDir;
let workspace: Workspace;
beforeEach(() => {
  dir = tempDir();
  workspace = makeWorkspace(dir.root);
});
afterEach(() => dir.cleanup());

const read = (input: unknown) => run(readFileTool, input, { workspace });
const lines = (n: number, from = 1) => Array.from({ length: n }, (_, i) => `line ${from + i}`).join('\n');

describe('read_file', () => {
  it('numbers lines like cat -n', async () => {
    dir.write('src/a.txt', 'alpha\nbeta\n\ngamma\n');
    const out = await read({ path: 'src/a.txt' });
    expect(out).toEqual({ content: '     1\talpha\n     2\tbeta\n     3\t\n     4\tgamma' });
  });

  it('starts at offset, stops at limit and says how to read on', async () => {
    dir.write('a.txt', `${lines(10)}\n`);
    const out = await read({ path: 'a.txt', offset: 3, limit: 2 });
    expect(out.content).toBe('     3\tline 3\n     4\tline 4\n\n[Lines 3-4 of 10. Read on with offset=5.]');
    const tail = await read({ path: 'a.txt', offset: 9 });
    expect(tail.content).toBe('     9\tline 9\n    10\tline 10');
  });

  it('shows 2,000 lines by default', async () => {
    dir.write('big.txt', lines(2500));
    const out = await read({ path: 'big.txt' });
    const shown = out.content.split('\n');
    expect(shown[0]).toBe('     1\tline 1');
    expect(shown[1999]).toBe('  2000\tline 2000');
    expect(shown.at(-1)).toBe('[Lines 1-2000 of 2500. Read on with offset=2001.]');
  });

  it('cuts a very long line and says how long it was', async () => {
    dir.write('min.js', `${'x'.repeat(5000)}\nshort\n`);
    const out = await read({ path: 'min.js' });
    const [first, second] = out.content.split('\n');
    expect(first).toBe(`     1\t${'x'.repeat(2000)}… [line cut: 5000 characters]`);
    expect(second).toBe('     2\tshort');
  });

  it('shows CRLF lines without their carriage return', async () => {
    dir.write('win.txt', 'a\r\nb\r\n');
    expect((await read({ path: 'win.txt' })).content).toBe('     1\ta\n     2\tb');
  });

  it('says when a file is empty', async () => {
    dir.write('empty.txt', '');
    expect(await read({ path: 'empty.txt' })).toEqual({ content: '(empty.txt is empty)' });
  });

  it('refuses a binary file, naming its size', async () => {
    dir.write('img.png', Buffer.concat([Buffer.from('PNG'), Buffer.alloc(3000)]));
    const out = await read({ path: 'img.png' });
    expect(out.isError).toBe(true);
    expect(out.content).toBe('img.png is a binary file (2.9 KB); read_file shows text and PNG, JPEG, GIF or WebP images only.');
  });

  it('judges binary by the first 8 KB only: a NUL at byte 8191 is binary, one at byte 8192 is text', async () => {
    const withNulAt = (at: number) => Buffer.concat([Buffer.from('a'.repeat(at)), Buffer.alloc(1), Buffer.from('\nend\n')]);
    dir.write('early.txt', withNulAt(8191));
    dir.write('late.txt', withNulAt(8192));
    expect((await read({ path: 'early.txt' })).isError).toBe(true);
    const late = await read({ path: 'late.txt' });
    expect(late.isError).toBeUndefined();
    expect(late.content).toContain('     2\tend');
  });

  it('refuses a FIFO without opening it (opening one waits for a writer)', async () => {
    const fifo = path.join(dir.root, 'pipe');
    execFileSync('mkfifo', [fifo]);
    expect(await read({ path: 'pipe' })).toEqual({
      content: 'pipe is a FIFO (named pipe), not a regular file; read_file reads regular files only.',
      isError: true,
    });
  });

  it('an aborted call reads nothing', async () => {
    dir.write('a.txt', 'alpha\n');
    const controller = new AbortController();
    controller.abort();
    const out = await run(readFileTool, { path: 'a.txt' }, { workspace, signal: controller.signal });
    expect(out.isError).toBe(true);
    expect(out.content).not.toContain('alpha');
  });

  it('reads small files at once and larger ones through the thread pool alike: text, line count, binary sniff, abort', async () => {
    // 256 KB is where the synchronous read stops; one file on each side of it.
    const row = 'x'.repeat(63);
    for (const [name, count] of [
      ['small.txt', 4096],
      ['large.txt', 4097],
    ] as const) {
      dir.write(name, `${row}\n`.repeat(count));
      const out = await read({ path: name, offset: count, limit: 1 });
      expect(out).toEqual({ content: `${String(count).padStart(6)}\t${row}` });
      const past = await read({ path: name, offset: count + 1 });
      expect(past).toEqual({ content: `${name} has ${count} lines; offset ${count + 1} is past the end.`, isError: true });
      dir.write(`${name}.bin`, `${row}\0\n`.repeat(count));
      expect((await read({ path: `${name}.bin` })).isError).toBe(true);
      const controller = new AbortController();
      controller.abort();
      const aborted = await run(readFileTool, { path: name }, { workspace, signal: controller.signal });
      expect(aborted.isError).toBe(true);
      expect(aborted.content).not.toContain(row);
    }
  });

  it('names a missing file and suggests glob', async () => {
    const out = await read({ path: 'nope/missing.ts' });
    expect(out).toEqual({ content: 'File not found: nope/missing.ts. Use glob to find files by name.', isError: true });
  });

  it('points a directory to list_dir', async () => {
    mkdirSync(path.join(dir.root, 'src'));
    const out = await read({ path: 'src' });
    expect(out).toEqual({ content: 'src is a directory; use list_dir to see its entries.', isError: true });
  });

  it('reports an offset past the end', async () => {
    dir.write('a.txt', 'one\ntwo\n');
    expect(await read({ path: 'a.txt', offset: 5 })).toEqual({
      content: 'a.txt has 2 lines; offset 5 is past the end.',
      isError: true,
    });
  });

  it('rejects offset 0 at the schema', async () => {
    await expect(read({ path: 'a.txt', offset: 0 })).rejects.toThrow(/offset/);
  });

  it('reads outside the workspace (the permission policy decides that), showing the absolute path', async () => {
    const other = tempDir();
    try {
      const file = other.write('notes.txt', 'hello\n');
      expect((await read({ path: file })).content).toBe('     1\thello');
      expect((await read({ path: path.join(other.root, 'gone.txt') })).content).toContain(path.join(other.root, 'gone.txt'));
    } finally {
      other.cleanup();
    }
  });

  it('streams a file too large to read whole, reading only as far as the page', async () => {
    const line = `${'y'.repeat(99)}\n`;
    writeFileSync(path.join(dir.root, 'huge.log'), line.repeat(180_000)); // 18 MB
    const out = await read({ path: 'huge.log', offset: 100, limit: 2 });
    const shown = out.content.split('\n');
    expect(shown[0]).toBe(`   100\t${'y'.repeat(99)}`);
    expect(shown[1]).toBe(`   101\t${'y'.repeat(99)}`);
    expect(shown.at(-1)).toBe('[Lines 100-101; the file (17.2 MB) continues. Read on with offset=102.]');
  });

  it('reads a file that is one huge line by bytes: only what it shows is kept, the cut names the size', async () => {
    // 40 MB without a newline: readline would hold all of it as one string (a 600 MB line
    // passes Node's string limit and crashed the tool); the byte reader keeps 8 KB of it.
    const huge = Buffer.alloc(40 * 1024 * 1024, 'a');
    huge.write('é', 1999, 'utf8'); // a two-byte character across the 2,000th character
    writeFileSync(path.join(dir.root, 'one-line.min.js'), Buffer.concat([huge, Buffer.from('\nsecond\n')]));
    const out = await read({ path: 'one-line.min.js' });
    const [first, second, third] = out.content.split('\n');
    expect(first).toMatch(/^ {5}1\ta+é?a*… \[line cut: 40\.0 MB\]$/);
    expect(first!.length).toBeLessThan(2_100);
    expect(second).toBe('     2\tsecond');
    expect(third).toBeUndefined();
  });

  it('streams pages from an offset, counting the lines it skips without keeping them', async () => {
    const line = `${'x'.repeat(99)}\n`;
    writeFileSync(path.join(dir.root, 'big.log'), line.repeat(200_000) + 'tail\r\n'); // 20 MB, a CRLF last line
    const out = await read({ path: 'big.log', offset: 200_000, limit: 5 });
    expect(out.content).toBe(`200000\t${'x'.repeat(99)}\n200001\ttail`);
  });

  it('declares the path it reads and labels the call with it', () => {
    expect(readFileTool.kind).toBe('read-only');
    expect(readFileTool.paths?.({ path: 'a.ts' })).toEqual(['a.ts']);
    expect(readFileTool.label?.({ path: 'a.ts' })).toBe('a.ts');
  });
});
