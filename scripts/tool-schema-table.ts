// Prints the JSON Schema table of the tools a session has (src/core/tools/schema-table.ts):
// scripts/build.mjs bundles and runs this before the build, and passes the table to the
// bundle. A real session, as a run opens one, in an empty folder with a stand-in model that is
// never called; a session in a git repository has the worktree tools too.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openSession } from '../src/core/session/open-session.js';
import { schemaTable } from '../src/core/tools/schema-table.js';

const base = mkdtempSync(path.join(os.tmpdir(), 'outrider-schema-table-'));
try {
  const cwd = path.join(base, 'project');
  mkdirSync(cwd);
  // A repository: the session then has its worktree tools as well (without git, they are
  // simply converted at run time).
  try {
    execFileSync('git', ['init', '--quiet', cwd], { stdio: 'ignore' });
  } catch {
    // no git here
  }
  const opened = await openSession({
    cwd,
    env: {
      HOME: base,
      OUTRIDER_HOME: path.join(base, 'home'),
      ANTHROPIC_API_KEY: 'sk-schema-table-0000',
      PATH: process.env.PATH,
    },
    headless: true,
    flags: {},
    sandboxProbe: { ok: false, reason: 'not probed: only the tool schemas are wanted' },
    stream: () => {
      throw new Error('the schema table session calls no model');
    },
  });
  const table = schemaTable(opened.session.tools.schemas());
  await opened.close();
  process.stdout.write(JSON.stringify(table));
} finally {
  rmSync(base, { recursive: true, force: true });
}
