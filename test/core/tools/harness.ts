import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { AnyTool, ToolOutput, Workspace } from '../../../src/core/tools/define.js';
import { makeWorkspace } from '../../../src/core/tools/paths.js';
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
