import { type BashToolOptions, createBashTool } from './bash.js';
import type { AnyTool } from './define.js';
import { createEditFileTool } from './edit-file.js';
import { globTool } from './glob.js';
import { type GrepToolOptions, grepTool } from './grep.js';
import { listDirTool } from './list-dir.js';
import { type TextSource, createReadFileTool } from './read-file.js';
import { type WebFetchOptions, webFetchTool } from './web-fetch.js';
import type { TextSink } from './text-sink.js';
import { createWriteFileTool } from './write-file.js';

export interface BuiltinToolOptions {
  /** Where rg is (undefined: search in JavaScript). Default: looked up on PATH once. */
  findRg?: GrepToolOptions['findRg'];
  /** web_fetch's bounds (settings `webFetchMaxBytes`, `webFetchTimeoutMs`). */
  webFetch?: WebFetchOptions;
  /** The JavaScript search's worker and deadline (tests build the worker from source). */
  js?: GrepToolOptions['js'];
  /** The environment rg runs in: the session's without its secrets (default: this process's). */
  rgEnv?: GrepToolOptions['env'];
  /** The session's OS sandbox and secrets for bash (default: none). */
  bash?: BashToolOptions;
  /** Where read_file takes text before the disk (an editor's buffers, over ACP); default: the disk. */
  readText?: TextSource;
  /** Where write_file and edit_file put new text besides the disk (an editor's buffers, over ACP). */
  writeText?: TextSink;
}

/** The built-in tools, in the order the model sees them. */
export function builtinTools(options: BuiltinToolOptions = {}): AnyTool[] {
  return [
    createReadFileTool({ source: options.readText }),
    createWriteFileTool({ sink: options.writeText }),
    createEditFileTool({ sink: options.writeText }),
    createBashTool(options.bash),
    grepTool({ findRg: options.findRg, js: options.js, env: options.rgEnv }),
    globTool,
    listDirTool,
    webFetchTool(options.webFetch),
  ];
}
