import { Box, renderToString } from 'ink';
import type { ReactElement } from 'react';
import type { Entry, LiveTool } from '../state/transcript.js';
import { LiveRegion } from './transcript-view.js';
import { TranscriptEntry } from './transcript-entry.js';

/**
 * A transcript entry as the lines the main chat prints for it (the same component, drawn to
 * text with its colours), for views that scroll through entries line by line (the job view).
 * Call it outside React's renders and effects: it renders a tree of its own.
 */
export function entryLines(entry: Entry, width: number): string[] {
  return drawn(
    <Box width={width}>
      <TranscriptEntry entry={entry} width={width} />
    </Box>,
    width,
  );
}

/** Text streaming in and tools running, as the main chat's live region shows them (the whole text, not its tail). */
export function liveLines(live: { text: string; tools: readonly LiveTool[] }, width: number): string[] {
  return drawn(<LiveRegion text={live.text} tools={[...live.tools]} width={width} textLines={Number.MAX_SAFE_INTEGER} />, width);
}

function drawn(tree: ReactElement, width: number): string[] {
  const text = renderToString(tree, { columns: width });
  return text === '' ? [] : text.split('\n');
}
