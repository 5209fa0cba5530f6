/** Reading a stored session back for --resume and --continue. */
import type { InstructionFileInfo } from './instruction-files.js';
import { nextJobNumber, readStoredJobs, storedJobIds } from './job-store.js';
import { repairHistory } from './repair-history.js';
import { SessionLookupError, findSession, newestEmptyTranscript, newestSessionFor } from './store.js';
import { readTranscript } from './transcript.js';

/**
 * The session `--resume <id>` names, or with none (`--continue`) the newest in `cwd`: its id,
 * history (repaired where the file was cut or edited), stored system prompt and the jobs of its
 * earlier runs. Throws SessionLookupError, phrased for the user, when there is none.
 */
export function loadResumedSession(sessionsDir: string, cwd: string, resume: string | undefined) {
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
  const warnings = [...read.warnings, ...repairs];
  return {
    id: summary.id,
    history,
    warnings,
    system,
    instructionFiles,
    firstJobNumber: nextJobNumber(summary.paths),
    storedJobs: readStoredJobs(summary.paths),
    takenJobIds: storedJobIds(summary.paths),
  };
}
