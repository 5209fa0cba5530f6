import { Box, Static, Text } from 'ink';
import { cutLine } from '../format.js';
import type { Entry, LiveTool } from '../state/transcript.js';
import { TranscriptEntry } from './transcript-entry.js';

/** Finished entries print once above everything (<Static>); only the live region re-renders. */
export function TranscriptView({ entries, width }: { entries: Entry[]; width: number }) {
  return (
    <Static items={entries}>
      {(entry) => (
        <Box key={entry.id} width={width}>
          <TranscriptEntry entry={entry} width={width} />
        </Box>
      )}
    </Static>
  );
}

/** How many lines of streaming text stay on screen; the whole message prints when it ends. */
const LIVE_LINES = 12;

export interface LiveRegionProps {
  text: string;
  thinking: boolean;
  tools: LiveTool[];
  busy: boolean;
  width: number;
}

/** What is happening now: streaming text, running tools, or a working indicator. */
export function LiveRegion({ text, thinking, tools, busy, width }: LiveRegionProps) {
  const lines = text.split('\n');
  const shown = lines.slice(-LIVE_LINES).join('\n');
  const idleIndicator = busy && !text && tools.length === 0;
  return (
    <Box flexDirection="column">
      {text ? <Text>{lines.length > LIVE_LINES ? `…\n${shown}` : shown}</Text> : null}
      {tools.map((tool) => (
        <Box key={tool.id} flexDirection="column">
          <Text>
            <Text color="yellow">● </Text>
            {cutLine(`${tool.name} ${tool.label}`.trim(), width - 2)}
          </Text>
          {tool.update ? <Text dimColor>{cutLine(`  ⎿ ${tool.update}`, width)}</Text> : null}
        </Box>
      ))}
      {idleIndicator ? <Text dimColor>{`${thinking ? 'thinking…' : 'working…'} (Esc to interrupt)`}</Text> : null}
    </Box>
  );
}
