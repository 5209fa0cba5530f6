import { useEffect, useState } from 'react';
import { isEnded, type Job, type WorktreeChanges } from '../../core/index.js';

/** Asks the core what an isolated job's branch changes now (`UiSession.worktreeChanges`). */
export type ChangesOf = (id: string, options: { running: boolean }) => Promise<WorktreeChanges | undefined>;

/**
 * What an isolated job's worktree changes (files, lines added and removed), counted off the
 * render path: again when its state changes or it starts a step (each step's edits are done by
 * then), never on a render alone. Undefined until counted, and for a job without a worktree.
 */
export function useJobChanges(
  changesOf: ChangesOf | undefined,
  job: Pick<Job, 'id' | 'state' | 'turns'>,
  isolated: boolean,
): { changes?: WorktreeChanges; error?: string } {
  const [counted, setCounted] = useState<{ key: string; changes?: WorktreeChanges; error?: string }>({ key: '' });
  const running = !isEnded(job.state);
  const key = `${job.id}:${job.state}:${running ? job.turns : ''}`;
  useEffect(() => {
    if (!isolated || !changesOf) return undefined;
    let current = true;
    changesOf(job.id, { running }).then(
      (changes) => {
        if (current) setCounted({ key, ...(changes ? { changes } : {}) });
      },
      (error: unknown) => {
        if (current) setCounted({ key, error: error instanceof Error ? error.message : String(error) });
      },
    );
    return () => {
      current = false;
    };
  }, [changesOf, job.id, running, key, isolated]);
  // A count for another job (the view reopened on a different one) is not shown.
  const mine = counted.key.startsWith(`${job.id}:`);
  return mine
    ? { ...(counted.changes ? { changes: counted.changes } : {}), ...(counted.error ? { error: counted.error } : {}) }
    : {};
}
