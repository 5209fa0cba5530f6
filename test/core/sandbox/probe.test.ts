import { chmodSync, existsSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { probeSandbox } from '../../../src/core/sandbox/probe.js';
import type { Workspace } from '../../../src/core/tools/define.js';
import { makeWorkspace } from '../../../src/core/platform/paths.js';
import { requireBwrap } from '../../support/bwrap.js';
import { type TempDir, tempDir } from '../tools/harness.js';

let project: TempDir;
let outside: TempDir;
let workspace: Workspace;
beforeEach(() => {
  project = tempDir('outrider-probe-project-');
  outside = tempDir('outrider-probe-outside-');
  workspace = makeWorkspace(project.root);
});
afterEach(() => {
  project.cleanup();
  outside.cleanup();
});

/** An executable `bwrap` in `dir` with this body. */
function fakeBwrap(dir: TempDir, body: string): string {
  const file = dir.write('bin/bwrap', `#!/bin/sh\n${body}\n`);
  chmodSync(file, 0o755);
  return path.dirname(file);
}

const realPath = process.env.PATH ?? '';

describe('probeSandbox', () => {
  it('finds a working bubblewrap and its version', async () => {
    const probe = await requireBwrap(workspace);
    expect(probe.bwrap).toMatch(/\/bwrap$/);
    expect(probe.version).toMatch(/^bubblewrap \d/);
  });

  it('without version: false asks no --version, and still runs the sandbox check', async () => {
    const log = path.join(outside.root, 'calls');
    const bin = fakeBwrap(
      outside,
      // A stand-in that says the check held: what is tested is which calls the probe makes.
      `echo "$1" >> ${log}\nif [ "$1" = --version ]; then echo bubblewrap 0.8.0; exit 0; fi\necho outrider-sandbox-ok`,
    );
    const env = { PATH: `${bin}:${realPath}` };
    const probe = await probeSandbox({ workspace, env, version: false });
    expect(probe).toEqual({ ok: true, bwrap: path.join(bin, 'bwrap'), version: 'bubblewrap' });
    expect(readFileSync(log, 'utf8')).not.toContain('--version');
    rmSync(log);
    expect(await probeSandbox({ workspace, env })).toMatchObject({ ok: true, version: 'bubblewrap 0.8.0' });
    expect(readFileSync(log, 'utf8')).toContain('--version');
  });

  it('never uses a bwrap the repository planted on PATH', async () => {
    const ran = path.join(outside.root, 'planted-ran');
    const bin = fakeBwrap(project, `touch '${ran}'; echo bubblewrap 9.9; exit 0`);
    const probe = await probeSandbox({ workspace, env: { PATH: `${bin}:${realPath}` } });
    expect(probe.ok && probe.bwrap).not.toBe(path.join(bin, 'bwrap'));
    expect(existsSync(ran)).toBe(false);
  });

  it('reports a bwrap that is there but cannot start a sandbox (a container without namespaces)', async () => {
    const bin = fakeBwrap(
      outside,
      'if [ "$1" = --version ]; then echo bubblewrap 0.8.0; exit 0; fi\necho "bwrap: No permissions to create new namespace" >&2; exit 1',
    );
    expect(await probeSandbox({ workspace, env: { PATH: bin } })).toEqual({
      ok: false,
      reason: `${bin}/bwrap is there but the sandbox does not start: bwrap: No permissions to create new namespace`,
    });
  });

  it('reports a bwrap that runs the command without fencing it', async () => {
    const bin = fakeBwrap(
      outside,
      'if [ "$1" = --version ]; then echo bubblewrap 0.8.0; exit 0; fi\nwhile [ "$1" != -- ]; do shift; done; shift; exec "$@"',
    );
    const probe = await probeSandbox({ workspace, env: { PATH: `${bin}:${realPath}` } });
    // As root / is writable; as anyone else the workspace still is.
    expect(probe.ok).toBe(false);
    expect(!probe.ok && probe.reason).toMatch(
      new RegExp(`^${bin}/bwrap starts, but the sandbox does not hold: (/ is writable|the workspace is writable)$`),
    );
  });

  it('says when bwrap is missing, or the system is not Linux', async () => {
    expect(await probeSandbox({ workspace, env: { PATH: outside.root } })).toEqual({
      ok: false,
      reason: 'bwrap was not found on PATH',
    });
    expect(await probeSandbox({ workspace, platform: 'darwin' })).toEqual({
      ok: false,
      reason: 'the OS sandbox uses bubblewrap, which needs Linux; this is darwin',
      unsupported: true,
    });
  });
});
