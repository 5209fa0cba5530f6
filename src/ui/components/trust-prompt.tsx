import path from 'node:path';
import { Box, Text } from 'ink';
import { useKeys } from '../bindings/use-keys.js';
import { describeEntry, displayValue, safeText, type SettingsReview } from '../../core/index.js';

/** The user's answer: trust (stored), do not trust (stored), or quit without starting. */
export type TrustChoice = 'trusted' | 'untrusted' | 'quit';

export interface TrustPromptProps {
  review: SettingsReview;
  onAnswer: (choice: TrustChoice) => void;
}

/**
 * Asked once per folder before the session opens, when the project's settings file holds
 * keys that widen what runs or where data goes: y trusts, n or Esc keeps only the user's own
 * settings, Ctrl+C quits. Every value shown is escaped, so a file cannot redraw the question.
 */
export function TrustPrompt({ review, onAnswer }: TrustPromptProps) {
  useKeys((input, key) => {
    if (key.ctrl && input === 'c') return onAnswer('quit');
    if (key.escape) return onAnswer('untrusted');
    switch (input.toLowerCase()) {
      case 'y':
        return onAnswer('trusted');
      case 'n':
        return onAnswer('untrusted');
      default:
        return undefined;
    }
  });
  const file = safeText(path.relative(review.folder, review.projectFile) || review.projectFile);
  return (
    <Box flexDirection="column" borderStyle="round" borderColor="yellow" paddingX={1}>
      <Text>
        <Text color="yellow" bold>
          Trust this folder?{' '}
        </Text>
        {safeText(review.folder)}
      </Text>
      <Text>
        Its settings can run programs without asking, let the agent edit outside it, send your API key elsewhere, or raise your
        limits and change prices.
      </Text>
      {review.stored === 'changed' ? <Text color="yellow">They changed since you trusted this folder.</Text> : null}
      {review.guarded.length > 0 ? <Text>{`${file} would apply:`}</Text> : null}
      {review.guarded.map((setting) => (
        <Box key={setting.key} flexDirection="column" paddingLeft={2}>
          <Text>
            <Text bold>{setting.key}</Text>
            {` ${displayValue(setting.value)}`}
            {setting.yours !== undefined ? <Text dimColor>{` (yours: ${displayValue(setting.yours)})`}</Text> : null}
          </Text>
          <Text dimColor>{`  ${setting.why}`}</Text>
        </Box>
      ))}
      <McpServersToStart review={review} />
      <AgentCommandsToRun review={review} />
      <Text>
        <Text bold>y</Text> trust this folder · <Text bold>n</Text>/<Text bold>Esc</Text> don&apos;t trust (your own settings
        only) · <Text bold>Ctrl+C</Text> quit
      </Text>
    </Box>
  );
}

/** The `.mcp.json` servers that would start: each one runs a program or reaches a server as you. */
function McpServersToStart({ review }: { review: SettingsReview }) {
  const { file, servers, guarded } = review.mcpJson;
  if (guarded.length === 0) return null;
  return (
    <Box flexDirection="column">
      <Text>{`${safeText(path.relative(review.folder, file) || file)} would start MCP servers:`}</Text>
      {guarded.map((name) => (
        <Text key={name}>
          {'  '}
          <Text bold>{safeText(name)}</Text>
          {` ${oneLineSafe(describeEntry(servers[name]!))}`}
        </Text>
      ))}
      <Text dimColor>{'    each runs a program with your environment, or connects to a server'}</Text>
    </Box>
  );
}

/** The project's agent files that start MCP servers, run hooks or keep memory in your home for their jobs. */
function AgentCommandsToRun({ review }: { review: SettingsReview }) {
  const files = Object.entries(review.agentCommands ?? {});
  if (files.length === 0) return null;
  return (
    <Box flexDirection="column">
      <Text>Agent files would run, for their jobs:</Text>
      {files.map(([file, commands]) => (
        <Box key={file} flexDirection="column" paddingLeft={2}>
          <Text bold>{safeText(file)}</Text>
          {Object.entries(commands.mcpServers ?? {}).map(([name, entry]) => (
            <Text key={`mcp:${name}`}>{`    MCP server ${safeText(name)} ${oneLineSafe(describeEntry(entry))}`}</Text>
          ))}
          {Object.entries(commands.hooks ?? {}).flatMap(([event, groups]) =>
            groups.flatMap((group, g) =>
              group.hooks.map((hook, h) => (
                <Text
                  key={`hook:${event}:${g}:${h}`}
                >{`    ${safeText(event)} hook ${oneLineSafe(hook.command ?? hook.type)}`}</Text>
              )),
            ),
          )}
          {commands.userMemory ? <Text>{'    memory: user, a folder in your home its agent reads in every project'}</Text> : null}
        </Box>
      ))}
    </Box>
  );
}

function oneLineSafe(text: string, max = 120): string {
  const safe = safeText(text);
  return safe.length <= max ? safe : `${safe.slice(0, max - 1)}…`;
}
