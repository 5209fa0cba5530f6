import { execFileSync } from 'node:child_process';
import { closeSync, constants, mkdirSync, mkdtempSync, openSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { AnyTool, ToolOutput, Workspace } from '../../../src/core/tools/define.js';
import { makeWorkspace } from '../../../src/core/platform/paths.js';
import { ToolRegistry, executeTool } from '../../../src/core/tools/registry.js';

/** A scratch directory under the OS temp dir, removed by `cleanup`. */
export interface TempDir {
  /** Real path (symlinks such as macOS's /var → /private/var followed). */
  root: string;
  /** Writes a file below the root, creating its directories; returns its absolute path. */
  write(rel: string, content: string | Buffer): string;
  cleanup(): void;
}

export function tempDir(prefix = 'outrider-tools-'): TempDir {
  const root = makeWorkspace(mkdtempSync(path.join(os.tmpdir(), prefix))).root;
  return {
    root,
    write(rel, content) {
      const file = path.join(root, rel);
      mkdirSync(path.dirname(file), { recursive: true });
      writeFileSync(file, content);
      return file;
    },
    cleanup() {
      rmSync(root, { recursive: true, force: true });
    },
  };
}

export interface RunOptions {
  workspace: Workspace;
  signal?: AbortSignal;
  onUpdate?: (text: string) => void;
}

/** Calls a tool the way the loop does: arguments parsed by its schema, then executeTool. */
export async function run(tool: AnyTool, input: unknown, options: RunOptions): Promise<ToolOutput> {
  const parsed = new ToolRegistry([tool]).parseArgs(tool, input);
  if (!parsed.ok) throw new Error(parsed.error);
  return executeTool(tool, parsed.args, {
    signal: options.signal ?? new AbortController().signal,
    workspace: options.workspace,
    onUpdate: options.onUpdate,
  });
}

/**
 * `promise`, or a failure naming `what` when it has not settled by a deadline (a call that
 * hangs). The deadline bounds a broken run only: it is generous, and nothing is timed.
 */
export async function settlesWithin<T>(promise: Promise<T>, what: string, deadlineMs = 20_000): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not return within ${deadlineMs} ms: it hangs`)), deadlineMs);
  });
  try {
    return await Promise.race([promise, deadline]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Makes a FIFO at `file`. `release()` lets go of a reader still blocked on it (a tool that
 * hung): it opens the FIFO for writing and closes it, so the reader sees its end instead of
 * holding a thread of the pool for the rest of the run.
 */
export function makeFifo(file: string): { release(): void } {
  execFileSync('mkfifo', [file]);
  return {
    release() {
      try {
        closeSync(openSync(file, constants.O_WRONLY | constants.O_NONBLOCK));
      } catch {
        // ENXIO: no reader waits on it.
      }
    },
  };
}
