import { Box, Static, Text } from 'ink';
import type { ReactNode } from 'react';
import { cutLine } from '../format.js';
import { LIVE_TEXT_MAX } from '../state/live-layout.js';
import { wrapCells } from '../text-cells.js';
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

export interface LiveRegionProps {
  text: string;
  tools: LiveTool[];
  /** The working line (spinner, phase, figures); absent when idle or when there is no room. */
  working?: string;
  width: number;
  /** Lines the streamed text may take (its tail shows); default LIVE_TEXT_MAX. */
  textLines?: number;
  /** Lines the running tools may take. */
  toolLines?: number;
}

/** The streamed text as screen lines at this width (a code fence still open shown as the code block it becomes). */
export function liveTextLines(text: string, width: number): string[] {
  return text ? wrapCells(withoutFences(text.replace(/\n+$/, '')), width) : [];
}

/**
 * A streaming block's fences (```` ```ts ````) dropped and its code indented, as the finished
 * block renders (markdown.tsx's Code): markup never shows while the block is still open.
 */
export function withoutFences(text: string): string {
  let fence: string | undefined;
  const out: string[] = [];
  for (const line of text.split('\n')) {
    const mark = /^ {0,3}(`{3,}|~{3,})/.exec(line)?.[1];
    if (fence === undefined && mark) {
      fence = mark;
      continue;
    }
    if (fence !== undefined && mark && mark[0] === fence[0] && mark.length >= fence.length && line.trim() === mark) {
      fence = undefined;
      continue;
    }
    out.push(fence !== undefined ? `  ${line}` : line);
  }
  return out.join('\n');
}

/** Lines the running tools take: the call, and its last output line when it has one. */
export function liveToolLines(tools: readonly LiveTool[]): number {
  return tools.reduce((n, tool) => n + (tool.update ? 2 : 1), 0);
}

/** What is happening now: streaming text, running tools, and the working line under them. */
export function LiveRegion({
  text,
  tools,
  working,
  width,
  textLines = LIVE_TEXT_MAX,
  toolLines = Number.MAX_SAFE_INTEGER,
}: LiveRegionProps) {
  const all = liveTextLines(text, width);
  const room = Math.max(0, textLines);
  const shown = all.length > room ? (room > 0 ? ['…', ...all.slice(all.length - room + 1)] : []) : all;
  const toolRows: { key: string; line: ReactNode }[] = [];
  for (const tool of tools) {
    toolRows.push({
      key: `${tool.id}:call`,
      line: (
        <>
          <Text color="yellow">● </Text>
          {cutLine(tool.action, width - 2)}
        </>
      ),
    });
    if (tool.update)
      toolRows.push({ key: `${tool.id}:update`, line: <Text dimColor>{cutLine(`  ⎿ ${tool.update}`, width)}</Text> });
  }
  return (
    <Box flexDirection="column">
      {shown.map((line, i) => (
        <Text key={i} wrap="truncate-end">
          {line}
        </Text>
      ))}
      {toolRows.slice(0, Math.max(0, toolLines)).map((row) => (
        <Text key={row.key} wrap="truncate-end">
          {row.line}
        </Text>
      ))}
      {working ? (
        <Text color="cyan" wrap="truncate-end">
          {cutLine(working, width)}
        </Text>
      ) : null}
    </Box>
  );
}
