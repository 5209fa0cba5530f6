/**
 * Where write_file and edit_file put a file's new text: an editor's buffer first when there is
 * one (`outrider acp` with `fs/write_text_file`: the edit lands in the editor's undo history and
 * the editor saves it), and always the disk, which every other tool (grep, bash, the next read)
 * reads. The workspace and protected-path checks run before either, as for any write.
 */
import { readFile } from 'node:fs/promises';
import { writeFileAtomic } from '../platform/atomic-write.js';
import { untilAborted } from '../platform/until-aborted.js';

/** Gives `content` for `absolutePath` to someone else (an editor); a failure falls back to the disk. */
export type TextSink = (absolutePath: string, content: string, signal: AbortSignal) => Promise<void>;

/**
 * Writes `content` at `real` (a path already judged writable): through `sink` when given, then
 * atomically to the disk unless the sink left exactly that there. How it went: `editor` when the
 * editor's write stands, `disk` otherwise.
 */
export async function writeText(
  real: string,
  content: string,
  sink: TextSink | undefined,
  signal: AbortSignal,
): Promise<'editor' | 'disk'> {
  if (sink) {
    try {
      await untilAborted(sink(real, content, signal), signal);
      if ((await readFile(real, 'utf8').catch(() => undefined)) === content) return 'editor';
    } catch {
      signal.throwIfAborted();
    }
  }
  await writeFileAtomic(real, content);
  return 'disk';
}
