import type { ShellHandle } from './shell-process.js';

/** What a background shell job is started with. */
export interface ShellStart {
  command: string;
  /** The job whose tool call started it (a sub-agent's id); undefined for the parent. */
  owner?: string;
  /** Applied to each line it prints before the line is shown or kept (the session's key scrubber). */
  scrub?: (text: string) => string;
  /** How long the command already ran (in the foreground, before Ctrl+B moved it): the job's time counts from its start. */
  ranForMs?: number;
}

/**
 * Where the bash tool hands running commands to be kept in the background: the session's job
 * manager, as shell jobs `sh-N`. `adopt` throws an Error whose message the model can act on
 * when no shell can start (the session is closing).
 */
export interface ShellHost {
  adopt(shell: ShellHandle, start: ShellStart): string;
  foreground: ForegroundCalls;
}

/** A foreground bash call still running, which can be moved into the background. */
export interface ForegroundCall {
  command: string;
  owner?: string;
  /** Moves the call into a shell job and ends the call; the job's id, or undefined when it had just finished. */
  detach(): string | undefined;
}

/** The foreground bash calls running now, so a key (Ctrl+B) can move them into the background. */
export class ForegroundCalls {
  private readonly calls = new Set<ForegroundCall>();

  /** Registers a running call; the returned function unregisters it. */
  register(call: ForegroundCall): () => void {
    this.calls.add(call);
    return () => {
      this.calls.delete(call);
    };
  }

  /** The calls of `owner` (undefined: the parent's own) running now. */
  running(owner?: string): ForegroundCall[] {
    return [...this.calls].filter((call) => call.owner === owner);
  }

  /** Moves every running call of `owner` (default: the parent's) into the background; the new jobs' ids. */
  detach(owner?: string): string[] {
    const ids: string[] = [];
    for (const call of this.running(owner)) {
      this.calls.delete(call);
      const id = call.detach();
      if (id) ids.push(id);
    }
    return ids;
  }
}
