import {
  appendFileSync,
  chmodSync,
  existsSync,
  mkdirSync,
  readFileSync,
  readdirSync,
  renameSync,
  rmSync,
  statSync,
  symlinkSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readCheckpointLog } from '../../../src/core/session/checkpoint-log.js';
import { withCheckpoints } from '../../../src/core/session/checkpoint-tools.js';
import { CHECKPOINT_MAX_BYTES, FileCheckpoints } from '../../../src/core/session/file-checkpoints.js';
import { sha256 } from '../../../src/core/session/file-state.js';
import { restoreFiles } from '../../../src/core/session/restore-files.js';
import { makeWorkspace } from '../../../src/core/platform/paths.js';
import type { AnyTool, Workspace } from '../../../src/core/tools/define.js';
import { editFileTool } from '../../../src/core/tools/edit-file.js';
import { writeFileTool } from '../../../src/core/tools/write-file.js';
import { type TempDir, makeFifo, run, settlesWithin, tempDir } from '../tools/harness.js';

let project: TempDir;
let outside: TempDir;
let sessionDir: string;
let workspace: Workspace;
let warnings: string[];

beforeEach(() => {
  project = tempDir('outrider-checkpoints-');
  outside = tempDir('outrider-outside-');
  sessionDir = path.join(outside.root, 'session');
  workspace = makeWorkspace(project.root);
  warnings = [];
});
afterEach(() => {
  project.cleanup();
  outside.cleanup();
});

/** A store over the session folder, and the two file tools recording into it. */
function checkpoints(options: { maxBytes?: number } = {}) {
  const store = new FileCheckpoints({ sessionDir, workspace, warn: (text) => warnings.push(text), ...options });
  const [write, edit] = withCheckpoints([writeFileTool, editFileTool], store) as [AnyTool, AnyTool];
  let prompts = 0;
  return {
    store,
    prompt: (text = `prompt ${++prompts}`) => store.prompt({}, text),
    write: (file: string, content: string, ws = workspace) => run(write, { path: file, content }, { workspace: ws }),
    edit: (file: string, from: string, to: string) => run(edit, { path: file, old_string: from, new_string: to }, { workspace }),
    restore: (n: number) => restoreFiles(store.changesSince(n), store),
  };
}

const read = (rel: string) => readFileSync(path.join(project.root, rel), 'utf8');
const log = () => readCheckpointLog(path.join(sessionDir, 'checkpoints', 'log.jsonl')).records;

describe('file checkpoints', () => {
  it('keeps what a file held before its first change in a prompt, once: two edits go back to the first content', async () => {
    const file = project.write('a.txt', 'one\n');
    chmodSync(file, 0o640);
    const c = checkpoints();
    c.prompt();
    await c.edit('a.txt', 'one', 'two');
    await c.edit('a.txt', 'two', 'three');
    expect(read('a.txt')).toBe('three\n');
    const befores = log().filter((r) => r.type === 'before');
    expect(befores).toEqual([{ type: 'before', n: 1, path: file, blob: sha256('one\n'), mode: 0o640 }]);

    const report = await c.restore(1);
    expect(read('a.txt')).toBe('one\n');
    expect(report).toEqual({ restored: ['a.txt'], deleted: [], conflicts: [], skipped: [] });
  });

  it('stores the log and every copy private to the user (0600, in 0700 folders)', async () => {
    project.write('a.txt', 'secret\n');
    const c = checkpoints();
    c.prompt();
    await c.write('a.txt', 'changed\n');
    const dir = path.join(sessionDir, 'checkpoints');
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    expect(statSync(path.join(dir, 'log.jsonl')).mode & 0o777).toBe(0o600);
    const blobs = readdirSync(path.join(dir, 'blobs'));
    expect(blobs).toEqual([sha256('secret\n')]);
    expect(statSync(path.join(dir, 'blobs', blobs[0]!)).mode & 0o777).toBe(0o600);
    expect(statSync(path.join(dir, 'blobs')).mode & 0o777).toBe(0o700);
  });

  it('deletes a file the agent created, and goes back prompt by prompt', async () => {
    project.write('a.txt', 'v0\n');
    const c = checkpoints();
    c.prompt();
    await c.edit('a.txt', 'v0', 'v1');
    c.prompt();
    await c.edit('a.txt', 'v1', 'v2');
    await c.write('new/dir/b.txt', 'made by the agent\n');

    expect(c.store.changesSince(2).map((change) => path.relative(project.root, change.path))).toEqual(['a.txt', 'new/dir/b.txt']);
    const second = await c.restore(2);
    expect(second).toEqual({ restored: ['a.txt'], deleted: ['new/dir/b.txt'], conflicts: [], skipped: [] });
    expect(read('a.txt')).toBe('v1\n');
    expect(existsSync(path.join(project.root, 'new/dir/b.txt'))).toBe(false);

    await c.restore(1);
    expect(read('a.txt')).toBe('v0\n');
  });

  it('puts a binary file back byte for byte, and a deleted file back with its mode', async () => {
    const bytes = Buffer.from([0, 255, 254, 10, 0x80, 0xc3, 0x28, 0, 1, 2]);
    chmodSync(project.write('image.bin', bytes), 0o640);
    const c = checkpoints();
    c.prompt();
    await c.write('image.bin', 'text now\n');
    rmSync(path.join(project.root, 'image.bin'));
    const report = await c.restore(1);
    expect(readFileSync(path.join(project.root, 'image.bin'))).toEqual(bytes);
    // Deleted since the agent's write: someone else's change, put back all the same and named.
    expect(report.conflicts).toEqual(['image.bin']);
    expect(statSync(path.join(project.root, 'image.bin')).mode & 0o777).toBe(0o640);
  });

  it('names a file someone else changed since the agent last wrote it, and restores it anyway', async () => {
    project.write('a.txt', 'mine\n');
    project.write('b.txt', 'b\n');
    const c = checkpoints();
    c.prompt();
    await c.write('a.txt', 'agent\n');
    await c.write('b.txt', 'agent b\n');
    writeFileSync(path.join(project.root, 'a.txt'), 'edited by hand\n');
    const report = await c.restore(1);
    expect(report.conflicts).toEqual(['a.txt']);
    expect(report.restored).toEqual(['a.txt', 'b.txt']);
    expect(read('a.txt')).toBe('mine\n');
  });

  it('keeps no copy of a file over the bound (2 MB by default) and says which it left alone', async () => {
    expect(CHECKPOINT_MAX_BYTES).toBe(2 * 1024 * 1024);
    const big = 'x'.repeat(CHECKPOINT_MAX_BYTES) + '\nend\n';
    project.write('big.txt', big);
    project.write('small.txt', 'small\n');
    const c = checkpoints();
    c.prompt();
    await c.edit('big.txt', 'end', 'END');
    await c.edit('small.txt', 'small', 'SMALL');
    expect(existsSync(path.join(sessionDir, 'checkpoints', 'blobs', sha256(big)))).toBe(false);
    expect(log().filter((r) => r.type === 'too-large')).toEqual([
      { type: 'too-large', n: 1, path: path.join(project.root, 'big.txt'), size: big.length },
    ]);
    const report = await c.restore(1);
    expect(report.restored).toEqual(['small.txt']);
    expect(report.skipped).toEqual([{ path: 'big.txt', why: 'it was 2.0 MB when first changed, over the 2.0 MB kept' }]);
    expect(read('big.txt')).toContain('END');
  });

  it('records nothing for paths the tools refuse: outside the workspace, through a link that leads out, a FIFO', async () => {
    outside.write('target.txt', 'outside\n');
    symlinkSync(path.join(outside.root, 'target.txt'), path.join(project.root, 'link.txt'));
    const fifo = makeFifo(path.join(project.root, 'pipe'));
    const c = checkpoints();
    c.prompt();
    expect((await c.write(path.join(outside.root, 'x.txt'), 'no\n')).isError).toBe(true);
    expect((await c.write('../x.txt', 'no\n')).isError).toBe(true);
    expect((await c.write('link.txt', 'no\n')).isError).toBe(true);
    expect((await settlesWithin(c.write('pipe', 'no\n'), 'write_file on a FIFO')).isError).toBe(true);
    fifo.release();
    expect(log().filter((r) => r.type !== 'prompt')).toEqual([]);
    expect(readFileSync(path.join(outside.root, 'target.txt'), 'utf8')).toBe('outside\n');
  });

  it('never restores through a symbolic link put on the path since, inside the workspace or out', async () => {
    project.write('a.txt', 'before\n');
    project.write('sub/f.txt', 'before f\n');
    project.write('other.txt', 'other\n');
    outside.write('f.txt', 'outside f\n');
    outside.write('a.txt', 'outside a\n');
    const c = checkpoints();
    c.prompt();
    await c.write('a.txt', 'agent\n');
    await c.write('sub/f.txt', 'agent f\n');
    await c.write('c.txt', 'created\n');
    // The file itself becomes a link out; a parent folder becomes a link out; a file becomes a link in.
    unlinkSync(path.join(project.root, 'a.txt'));
    symlinkSync(path.join(outside.root, 'a.txt'), path.join(project.root, 'a.txt'));
    renameSync(path.join(project.root, 'sub'), path.join(project.root, 'sub-moved'));
    symlinkSync(outside.root, path.join(project.root, 'sub'));
    unlinkSync(path.join(project.root, 'c.txt'));
    symlinkSync(path.join(project.root, 'other.txt'), path.join(project.root, 'c.txt'));

    const report = await c.restore(1);
    expect(report.restored).toEqual([]);
    expect(report.deleted).toEqual([]);
    expect(report.skipped).toEqual([
      { path: 'a.txt', why: `it now leads outside the workspace (${path.join(outside.root, 'a.txt')})` },
      { path: 'sub/f.txt', why: `it now leads outside the workspace (${path.join(outside.root, 'f.txt')})` },
      { path: 'c.txt', why: 'a symbolic link now stands on its path (it leads to other.txt)' },
    ]);
    expect(readFileSync(path.join(outside.root, 'a.txt'), 'utf8')).toBe('outside a\n');
    expect(readFileSync(path.join(outside.root, 'f.txt'), 'utf8')).toBe('outside f\n');
    expect(read('other.txt')).toBe('other\n');
  });

  it('leaves alone a directory now where a file was', async () => {
    project.write('a.txt', 'before\n');
    const c = checkpoints();
    c.prompt();
    await c.write('a.txt', 'agent\n');
    rmSync(path.join(project.root, 'a.txt'));
    mkdirSync(path.join(project.root, 'a.txt'));
    const report = await c.restore(1);
    expect(report.skipped).toEqual([{ path: 'a.txt', why: 'it is now a directory' }]);
  });

  it("leaves an isolated job's worktree alone: edits in another workspace are not recorded", async () => {
    const worktree = tempDir('outrider-worktree-');
    try {
      worktree.write('a.txt', 'in the worktree\n');
      const c = checkpoints();
      c.prompt();
      await c.write('a.txt', 'job edit\n', makeWorkspace(worktree.root));
      expect(log().filter((r) => r.type !== 'prompt')).toEqual([]);
      expect(await c.restore(1)).toEqual({ restored: [], deleted: [], conflicts: [], skipped: [] });
      expect(readFileSync(path.join(worktree.root, 'a.txt'), 'utf8')).toBe('job edit\n');
    } finally {
      worktree.cleanup();
    }
  });

  it('is read back by a resumed session: the same changes, prompts numbered on', async () => {
    project.write('a.txt', 'v0\n');
    const first = checkpoints();
    first.prompt('one');
    await first.edit('a.txt', 'v0', 'v1');
    first.prompt('two');

    const again = checkpoints();
    expect(again.store.points()).toEqual([
      { n: 1, hash: sha256('one') },
      { n: 2, hash: sha256('two') },
    ]);
    again.prompt('three');
    await again.edit('a.txt', 'v1', 'v3');
    expect(again.store.points().map((p) => p.n)).toEqual([1, 2, 3]);
    expect(again.store.changesSince(3)).toEqual([
      { path: path.join(project.root, 'a.txt'), n: 3, before: { blob: sha256('v1\n'), mode: expect.any(Number) } },
    ]);
    await again.restore(1);
    expect(read('a.txt')).toBe('v0\n');
  });

  it('reads a hostile log without acting on it: paths outside, bad lines, a damaged copy', async () => {
    outside.write('victim.txt', 'do not touch\n');
    project.write('a.txt', 'now\n');
    const dir = path.join(sessionDir, 'checkpoints');
    mkdirSync(path.join(dir, 'blobs'), { recursive: true });
    writeFileSync(path.join(dir, 'blobs', sha256('real\n')), 'not what the name says');
    const lines = [
      { type: 'prompt', n: 1, hash: sha256('p'), at: '' },
      { type: 'before', n: 1, path: path.join(outside.root, 'victim.txt'), blob: null },
      { type: 'before', n: 1, path: `${project.root}/../${path.basename(outside.root)}/victim.txt`, blob: null },
      { type: 'before', n: 1, path: path.join(project.root, 'a.txt'), blob: sha256('real\n') },
      { type: 'before', n: 1, path: 'relative.txt', blob: null },
      { type: 'before', n: 1, path: path.join(project.root, 'b.txt'), blob: '../../../etc/passwd' },
    ];
    writeFileSync(path.join(dir, 'log.jsonl'), `${lines.map((l) => JSON.stringify(l)).join('\n')}\n{"type":"prompt","n":2,"ha`);
    const c = checkpoints();
    const report = await c.restore(1);
    expect(report.skipped.map((s) => s.why)).toEqual([
      `it now leads outside the workspace (${path.join(outside.root, 'victim.txt')})`,
      `it now leads outside the workspace (${path.join(outside.root, 'victim.txt')})`,
      `its saved copy is missing or damaged (${path.join(dir, 'blobs', sha256('real\n'))})`,
    ]);
    expect(readFileSync(path.join(outside.root, 'victim.txt'), 'utf8')).toBe('do not touch\n');
    expect(read('a.txt')).toBe('now\n');
    expect(warnings).toEqual([`3 unreadable line(s) of ${path.join(dir, 'log.jsonl')} skipped`]);
    // A line cut short stays alone: the next record starts on a line of its own.
    c.prompt('next');
    expect(c.store.points().map((p) => p.n)).toEqual([1, 2]);
    expect(readCheckpointLog(path.join(dir, 'log.jsonl')).records.at(-1)).toMatchObject({ type: 'prompt', n: 2 });
  });

  it('never fails an edit: a store that cannot be written says so once and records no more', async () => {
    writeFileSync(sessionDir, 'a file where the session folder should be');
    project.write('a.txt', 'one\n');
    const c = checkpoints();
    c.prompt();
    expect((await c.edit('a.txt', 'one', 'two')).isError).toBeFalsy();
    expect((await c.edit('a.txt', 'two', 'three')).isError).toBeFalsy();
    expect(read('a.txt')).toBe('three\n');
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(
      /^file checkpoints stopped \(.*\): \/rewind cannot put back files changed from now on; check that .* is writable$/,
    );
  });

  it('an edit that fails or changes nothing records nothing', async () => {
    project.write('a.txt', 'one\n');
    const c = checkpoints();
    c.prompt();
    expect((await c.edit('a.txt', 'missing', 'x')).isError).toBe(true);
    await c.write('a.txt', 'one\n');
    expect(log().filter((r) => r.type === 'before')).toEqual([]);
    appendFileSync(path.join(project.root, 'a.txt'), 'by hand\n');
    await c.edit('a.txt', 'by hand', 'by the agent');
    expect(c.store.changesSince(1)[0]?.before).toEqual({ blob: sha256('one\nby hand\n'), mode: expect.any(Number) });
  });
});
