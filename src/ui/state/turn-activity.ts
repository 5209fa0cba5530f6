import { formatDuration, formatTokens, type SessionEvent, totalTokens } from '../../core/index.js';
import { rateLimitText } from '../format.js';

/** What the parent's running turn is doing, and since when (times on the app's clock). */
export interface TurnActivity {
  startedAt: number;
  phase: Phase;
  /** When the phase began. */
  since: number;
  /** Tokens the turn has used so far (the model's own counts). */
  tokens: number;
  /** Output tokens the model's answers counted so far this turn (its own counts, at each call's end). */
  output: number;
  /** Characters streamed since the last count: the call still answering, estimated at four a token. */
  streamed: number;
  /** Tools running now, by call id, in start order (the phase names the latest). */
  tools: readonly { id: string; name: string }[];
}

export type Phase =
  | { kind: 'model' }
  | { kind: 'thinking' }
  | { kind: 'writing' }
  | { kind: 'tool'; name: string }
  /** The model call waits at the provider's rate-limit gate: until `until` (the pause's end), or for a place. */
  | { kind: 'rate_limit'; until?: number };

const phaseAt = (turn: TurnActivity, phase: Phase, now: number): TurnActivity =>
  turn.phase.kind === phase.kind && (phase.kind !== 'tool' || (turn.phase.kind === 'tool' && turn.phase.name === phase.name))
    ? turn
    : { ...turn, phase, since: now };

/** One event into the turn's activity: a turn begins at `submit` and is over at `run_end`. */
export function applyTurnActivity(turn: TurnActivity | undefined, event: SessionEvent, now: number): TurnActivity | undefined {
  if (event.type === 'submit')
    return { startedAt: now, phase: { kind: 'model' }, since: now, tokens: 0, output: 0, streamed: 0, tools: [] };
  if (!turn) return undefined;
  switch (event.type) {
    case 'turn_start':
      return phaseAt(turn, { kind: 'model' }, now);
    case 'thinking_delta':
      return phaseAt({ ...turn, streamed: turn.streamed + event.text.length }, { kind: 'thinking' }, now);
    case 'text_delta':
      return phaseAt({ ...turn, streamed: turn.streamed + event.text.length }, { kind: 'writing' }, now);
    case 'retry':
      return phaseAt(turn, { kind: 'model' }, now);
    case 'rate_limit': {
      if (!event.waiting) return phaseAt(turn, { kind: 'model' }, now);
      const since = turn.phase.kind === 'rate_limit' ? turn.since : now;
      return { ...turn, phase: { kind: 'rate_limit', ...(event.until !== undefined ? { until: event.until } : {}) }, since };
    }
    case 'tool_start':
      return phaseAt(
        { ...turn, tools: [...turn.tools, { id: event.id, name: event.name }] },
        { kind: 'tool', name: event.name },
        now,
      );
    case 'tool_end': {
      const tools = turn.tools.filter((tool) => tool.id !== event.id);
      const latest = tools[tools.length - 1];
      return phaseAt({ ...turn, tools }, latest ? { kind: 'tool', name: latest.name } : { kind: 'model' }, now);
    }
    case 'usage':
      return { ...turn, tokens: totalTokens(event.total), output: event.total.output, streamed: 0 };
    case 'run_end':
      return undefined;
    default:
      return turn;
  }
}

/** Braille spinner frames, one per tick of the working line. */
const SPINNER = '⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏';
/** How often the working line moves while a turn runs. */
export const WORKING_TICK_MS = 200;

export function spinnerFrame(now: number): string {
  return SPINNER[Math.floor(now / WORKING_TICK_MS) % SPINNER.length]!;
}

/** `running bash 3s`, `waiting for the model`: what the turn does now; a tool's own time, as a turn may run several. */
export function phaseText(turn: TurnActivity, now: number): string {
  switch (turn.phase.kind) {
    case 'model':
      return 'waiting for the model';
    case 'thinking':
      return 'thinking';
    case 'writing':
      return 'writing';
    case 'tool':
      return `running ${turn.phase.name} ${formatDuration(now - turn.since)}`;
    case 'rate_limit':
      return rateLimitText(turn.phase.until, now);
    default: {
      const unhandled: never = turn.phase;
      return String(unhandled);
    }
  }
}

/** Output tokens so far: the model's counts, and an estimate (four characters a token) of what streams now. */
export function outputTokens(turn: TurnActivity): number {
  return turn.output + Math.ceil(turn.streamed / 4);
}

/** True while a foreground bash call runs: Ctrl+B would move it to the background. */
export function bashRunning(turn: TurnActivity | undefined): boolean {
  return turn?.tools.some((tool) => tool.name === 'bash') ?? false;
}

/**
 * The working line: `⠙ running bash 3s · Ctrl+B to run in background · turn 1m02s · ↓ 850 tokens ·
 * Esc to interrupt`. Each time is labelled (the tool's after its name, the turn's as `turn`);
 * `↓` counts what the model wrote, streaming included.
 */
export function workingLine(turn: TurnActivity | undefined, now: number, what?: string): string {
  if (!turn) return `${spinnerFrame(now)} ${what ?? 'working'} · Esc to interrupt`;
  // The key comes right after what it acts on, so a narrow screen (the line is cut) still shows it.
  const parts = [phaseText(turn, now), ...(bashRunning(turn) ? ['Ctrl+B to run in background'] : [])];
  parts.push(`turn ${formatDuration(now - turn.startedAt)}`);
  const output = outputTokens(turn);
  if (output > 0) parts.push(`↓ ${formatTokens(output)} tokens`);
  return `${spinnerFrame(now)} ${parts.join(' · ')} · Esc to interrupt`;
}
