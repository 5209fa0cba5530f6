/** Reading a stored session back for --resume and --continue. */
import type { InstructionFileInfo } from './instruction-files.js';
import { recoverJobs } from './job-recovery.js';
import { nextJobNumber, readStoredJobs, storedJobIds } from './job-store.js';
import { repairHistory } from './repair-history.js';
import { lastRecordedModel } from './resumed-model.js';
import { SessionLookupError, findSession, newestEmptyTranscript, newestSessionFor } from './store.js';
import { readTranscript } from './transcript.js';

/**
 * The session `--resume <id>` names, or with none (`--continue`) the newest in `cwd`: its id,
 * history (repaired where the file was cut or edited), stored system prompt and the jobs of its
 * earlier runs, those a crash cut off ended as interrupted (their worktrees salvaged), those
 * whose end the model never heard of marked owed. Throws SessionLookupError, phrased for the
 * user, when there is none.
 */
export async function loadResumedSession(
  sessionsDir: string,
  cwd: string,
  resume: string | undefined,
  env: NodeJS.ProcessEnv = process.env,
) {
  const summary = resume ? findSession(sessionsDir, resume) : newestSessionFor(sessionsDir, cwd);
  if (!summary) {
    const empty = newestEmptyTranscript(sessionsDir);
    const why = empty ? `: the newest transcript, ${empty}, is empty, so the folder it belongs to is unknown` : '';
    throw new SessionLookupError(`no earlier session in ${cwd} to continue${why}; start a new one without --continue`);
  }
  const read = readTranscript(summary.paths.transcript);
  const systemEvent = read.events.find((e) => e.name === 'system_prompt');
  const stored = systemEvent?.data as { system?: string; instructionFiles?: InstructionFileInfo[] } | undefined;
  const system = stored?.system;
  // Sessions written before the list was stored show none.
  const instructionFiles = Array.isArray(stored?.instructionFiles) ? stored.instructionFiles : [];
  // Before the first request: the file may hold anything (a crash, a hand edit, another version).
  const { history, warnings: repairs } = repairHistory(read.history);
  // The notices in the parent's transcript settle ends whose delivery mark a crash cut off.
  const jobs = await recoverJobs(readStoredJobs(summary.paths, read.notices), {
    paths: summary.paths,
    sessionId: summary.id,
    cwd: summary.cwd,
    env,
  });
  const warnings = [...read.warnings, ...repairs, ...jobs.warnings];
  return {
    id: summary.id,
    history,
    warnings,
    system,
    instructionFiles,
    // The model `/model` last switched to: the resumed session starts on it unless this run's flags name one.
    model: lastRecordedModel(read.events),
    firstJobNumber: nextJobNumber(summary.paths),
    storedJobs: jobs.jobs,
    takenJobIds: storedJobIds(summary.paths),
  };
}
