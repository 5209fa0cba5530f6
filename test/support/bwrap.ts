import type { SandboxProbe } from '../../src/core/sandbox/plan.js';
import { probeSandbox } from '../../src/core/sandbox/probe.js';
import type { Workspace } from '../../src/core/tools/define.js';

/**
 * The sandbox probe for tests that need bubblewrap. They fail, never skip, where it is
 * missing: CI installs it (.ci/run), and a silent skip would hide a sandbox that stopped working.
 */
export async function requireBwrap(workspace: Workspace): Promise<Extract<SandboxProbe, { ok: true }>> {
  const probe = await probeSandbox({ workspace });
  if (!probe.ok) {
    throw new Error(
      `these tests need a working bubblewrap: install it (apt-get install bubblewrap) and run them again (${probe.reason})`,
    );
  }
  return probe;
}
