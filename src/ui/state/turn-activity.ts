import { formatDuration, formatTokens, type SessionEvent, totalTokens } from '../../core/index.js';

/** What the parent's running turn is doing, and since when (times on the app's clock). */
export interface TurnActivity {
  startedAt: number;
  phase: Phase;
  /** When the phase began. */
  since: number;
  /** Tokens the turn has used so far (the model's own counts). */
  tokens: number;
  /** Tools running now, by call id, in start order (the phase names the latest). */
  tools: readonly { id: string; name: string }[];
}

export type Phase = { kind: 'model' } | { kind: 'thinking' } | { kind: 'writing' } | { kind: 'tool'; name: string };

const phaseAt = (turn: TurnActivity, phase: Phase, now: number): TurnActivity =>
  turn.phase.kind === phase.kind && (phase.kind !== 'tool' || (turn.phase.kind === 'tool' && turn.phase.name === phase.name))
    ? turn
    : { ...turn, phase, since: now };

/** One event into the turn's activity: a turn begins at `submit` and is over at `run_end`. */
export function applyTurnActivity(turn: TurnActivity | undefined, event: SessionEvent, now: number): TurnActivity | undefined {
  if (event.type === 'submit') return { startedAt: now, phase: { kind: 'model' }, since: now, tokens: 0, tools: [] };
  if (!turn) return undefined;
  switch (event.type) {
    case 'turn_start':
      return phaseAt(turn, { kind: 'model' }, now);
    case 'thinking_delta':
      return phaseAt(turn, { kind: 'thinking' }, now);
    case 'text_delta':
      return phaseAt(turn, { kind: 'writing' }, now);
    case 'retry':
      return phaseAt(turn, { kind: 'model' }, now);
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
      return { ...turn, tokens: totalTokens(event.total) };
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

/** `running bash 3s`, `waiting for the model 12s`. */
export function phaseText(turn: TurnActivity, now: number): string {
  const since = formatDuration(now - turn.since);
  switch (turn.phase.kind) {
    case 'model':
      return `waiting for the model ${since}`;
    case 'thinking':
      return `thinking ${since}`;
    case 'writing':
      return `writing ${since}`;
    case 'tool':
      return `running ${turn.phase.name} ${since}`;
    default: {
      const unhandled: never = turn.phase;
      return String(unhandled);
    }
  }
}

/** The working line: `⠙ running bash 3s · 1m02s · 3.4k tok · Esc to interrupt`. */
export function workingLine(turn: TurnActivity | undefined, now: number, what?: string): string {
  if (!turn) return `${spinnerFrame(now)} ${what ?? 'working'} · Esc to interrupt`;
  const parts = [phaseText(turn, now), formatDuration(now - turn.startedAt)];
  if (turn.tokens > 0) parts.push(`${formatTokens(turn.tokens)} tok`);
  return `${spinnerFrame(now)} ${parts.join(' · ')} · Esc to interrupt`;
}
