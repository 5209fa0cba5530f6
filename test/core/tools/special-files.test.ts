import { existsSync, readFileSync, statSync, symlinkSync, truncateSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Workspace } from '../../../src/core/tools/define.js';
import { editFileTool } from '../../../src/core/tools/edit-file.js';
import { globTool } from '../../../src/core/tools/glob.js';
import { findExecutable } from '../../../src/core/platform/find-executable.js';
import { grepTool } from '../../../src/core/tools/grep.js';
import { makeWorkspace } from '../../../src/core/platform/paths.js';
import { readFileTool } from '../../../src/core/tools/read-file.js';
import {
  openRegularFile,
  readRegularFile,
  readRegularFileNow,
  readRegularText,
} from '../../../src/core/platform/regular-file.js';
import { writeFileTool } from '../../../src/core/tools/write-file.js';
import { FakeClock } from '../../support/fake-clock.js';
import { jsGrep } from '../../support/grep-worker.js';
import { until } from '../../support/until.js';
import { type TempDir, makeFifo, run, settlesWithin, tempDir } from './harness.js';

// A FIFO holds an open (and a read) until a writer comes; /dev/zero and /dev/random never end.
// Each call is awaited against a generous deadline: a call that hangs fails the test with a
// message instead of hanging the run. Nothing is timed.

let dir: TempDir;
let workspace: Workspace;
const fifos: { release(): void }[] = [];
beforeEach(() => {
  dir = tempDir();
  workspace = makeWorkspace(dir.root);
});
afterEach(() => {
  // A tool that hung still holds a thread of the pool on its FIFO: let it go.
  for (const fifo of fifos.splice(0)) fifo.release();
  dir.cleanup();
});

function fifoAt(rel: string): string {
  const file = path.join(dir.root, rel);
  fifos.push(makeFifo(file));
  return file;
}

const never = new AbortController().signal;
/** Without rg on PATH, its case runs the JavaScript search again. */
const rgPath = await findExecutable('rg');

describe('the file tools refuse what is not a regular file, without waiting on it', () => {
  it('edit_file on a FIFO returns an error instead of waiting for a writer', async () => {
    fifoAt('pipe');
    const out = await settlesWithin(
      run(editFileTool, { path: 'pipe', old_string: 'a', new_string: 'b' }, { workspace }),
      'edit_file',
    );
    expect(out).toEqual({
      content: 'pipe is a FIFO (named pipe), not a regular file; edit_file edits regular files only.',
      isError: true,
    });
  });

  it('write_file on a FIFO returns an error and leaves the FIFO as it was', async () => {
    const fifo = fifoAt('pipe');
    const out = await settlesWithin(run(writeFileTool, { path: 'pipe', content: 'text\n' }, { workspace }), 'write_file');
    expect(out).toEqual({
      content: 'pipe is a FIFO (named pipe), not a regular file; write_file writes regular files only.',
      isError: true,
    });
    expect(statSync(fifo).isFIFO()).toBe(true);
  });

  it('read_file on a FIFO and a socket, and on /dev/zero, /dev/random and /dev/null through links in the workspace', async () => {
    fifoAt('pipe');
    const server = net.createServer();
    await new Promise<void>((resolve) => server.listen(path.join(dir.root, 'sock'), resolve));
    try {
      for (const device of ['zero', 'random', 'null']) symlinkSync(`/dev/${device}`, path.join(dir.root, device));
      const read = (rel: string) => settlesWithin(run(readFileTool, { path: rel }, { workspace }), `read_file ${rel}`);
      const refused = (what: string) => `${what}, not a regular file; read_file reads regular files only.`;
      expect(await read('pipe')).toEqual({ content: refused('pipe is a FIFO (named pipe)'), isError: true });
      expect(await read('sock')).toEqual({ content: refused('sock is a socket'), isError: true });
      for (const device of ['zero', 'random', 'null']) {
        expect(await read(device)).toEqual({ content: refused(`${device} is a character device`), isError: true });
      }
    } finally {
      server.close();
    }
  });

  it.each([
    ['the JavaScript search', () => undefined],
    ['rg, which would wait on the FIFO', () => rgPath],
  ])('grep via %s refuses a FIFO or a device it is pointed at', async (_name, findRg) => {
    fifoAt('pipe');
    symlinkSync('/dev/zero', path.join(dir.root, 'zero'));
    const grep = grepTool({ findRg, js: jsGrep });
    const search = (rel: string) => settlesWithin(run(grep, { pattern: 'x', path: rel }, { workspace }), `grep in ${rel}`);
    expect(await search('pipe')).toEqual({
      content: 'pipe is a FIFO (named pipe), not a regular file or a directory; grep searches those only.',
      isError: true,
    });
    expect((await search('zero')).content).toMatch(/^zero is a character device, not a regular file or a directory/);
  });

  it('glob and the JavaScript grep walk past a .gitignore that is a FIFO (its rules unread)', async () => {
    dir.write('src/a.txt', 'needle\n');
    fifoAt('src/.gitignore');
    const found = await settlesWithin(run(globTool, { pattern: '**/*.txt' }, { workspace }), 'glob');
    expect(found.content).toBe('src/a.txt');
    const grep = grepTool({ findRg: () => undefined, js: jsGrep });
    const matches = await settlesWithin(run(grep, { pattern: 'needle' }, { workspace }), 'grep');
    expect(matches.content).toBe('src/a.txt:1:needle');
  });

  it.runIf(rgPath !== undefined)('rg, which waits on a .gitignore that is a FIFO, is stopped at its deadline', async () => {
    dir.write('src/a.txt', 'needle\n');
    fifoAt('src/.gitignore');
    const clock = new FakeClock();
    const grep = grepTool({ findRg: () => rgPath, rgDeadline: { ms: 30_000, timers: clock } });
    const search = run(grep, { pattern: 'needle' }, { workspace });
    // rg is running (its deadline set) and stuck on the FIFO: time passes.
    await until(() => clock.pending() > 0, { what: 'rg to start' });
    clock.advance(30_000);
    const result = await settlesWithin(search, 'grep');
    expect(result.content).toMatch(/rg was stopped after 30 s: something in the tree kept it waiting \(a FIFO, a slow mount\)/);
  });
});

describe('reads obey the turn’s signal', () => {
  it('an edit whose read the signal aborts ends as interrupted and changes nothing', async () => {
    // A large file (sparse: no disk used) that holds no old_string: read whole, it would be searched and refused.
    const file = dir.write('big.txt', 'head\n');
    truncateSync(file, 64 * 1024 * 1024);
    const controller = new AbortController();
    const pending = run(
      editFileTool,
      { path: 'big.txt', old_string: 'absent', new_string: 'x' },
      { workspace, signal: controller.signal },
    );
    controller.abort();
    expect(await settlesWithin(pending, 'the aborted edit_file')).toEqual({
      content: 'edit_file was interrupted',
      isError: true,
    });
    expect(statSync(file).size).toBe(64 * 1024 * 1024);
  });

  it('a write whose read of the old content the signal aborts writes nothing', async () => {
    const file = dir.write('a.txt', 'old\n');
    const controller = new AbortController();
    const pending = run(writeFileTool, { path: 'a.txt', content: 'new\n' }, { workspace, signal: controller.signal });
    controller.abort();
    expect(await settlesWithin(pending, 'the aborted write_file')).toEqual({
      content: 'write_file was interrupted',
      isError: true,
    });
    expect(readFileSync(file, 'utf8')).toBe('old\n');
  });

  it('an open or read under way rejects with the abort reason once the signal aborts', async () => {
    const file = dir.write('big.bin', 'head\n');
    truncateSync(file, 64 * 1024 * 1024);
    const controller = new AbortController();
    const reading = readRegularFile(file, controller.signal);
    controller.abort(new Error('stopped by the user'));
    await expect(settlesWithin(reading, 'the aborted read')).rejects.toThrow('stopped by the user');
  });
});

describe('regular-file', () => {
  it('says what a path is that it does not open', async () => {
    fifoAt('pipe');
    expect(await settlesWithin(openRegularFile(path.join(dir.root, 'pipe'), never), 'open')).toEqual({
      ok: false,
      reason: 'special',
      kind: 'a FIFO (named pipe)',
    });
    expect(await openRegularFile('/dev/zero', never)).toEqual({ ok: false, reason: 'special', kind: 'a character device' });
    expect(await openRegularFile(dir.root, never)).toEqual({ ok: false, reason: 'directory' });
    expect(await openRegularFile(path.join(dir.root, 'none'), never)).toEqual({ ok: false, reason: 'missing' });
    expect(readRegularFileNow('/dev/zero', 1024)).toEqual({ ok: false, reason: 'special', kind: 'a character device' });
    expect(await readRegularText('/dev/zero')).toBeUndefined();
  });

  it('reads a regular file, and one the kernel makes as it is read (size 0 on disk)', async () => {
    const file = dir.write('a.txt', 'alpha\n');
    const read = await readRegularFile(file, never);
    expect(read.ok && read.bytes.toString()).toBe('alpha\n');
    const now = readRegularFileNow(file, 1024);
    expect(now?.ok && now.bytes.toString()).toBe('alpha\n');
    expect(readRegularFileNow(file, 3)).toBeUndefined();
    if (existsSync('/proc/self/status')) {
      expect(statSync('/proc/self/status').size).toBe(0);
      const status = readRegularFileNow('/proc/self/status', 1024 * 1024);
      expect(status?.ok && status.bytes.toString()).toMatch(/^Name:/);
    }
  });
});
