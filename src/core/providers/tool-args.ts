/**
 * Tool-call arguments arrive as streamed JSON text. When that text does not parse,
 * the tool_use block keeps it as `{ [INVALID_JSON_KEY]: raw }`, so the loop can tell
 * the model exactly what it sent instead of the call silently vanishing.
 */
import { INVALID_JSON_KEY } from './types.js';

export { INVALID_JSON_KEY };

/** Parses streamed tool arguments; empty text means no arguments. */
export function parseToolArgs(raw: string): unknown {
  if (raw.trim() === '') return {};
  try {
    return JSON.parse(raw);
  } catch {
    return { [INVALID_JSON_KEY]: raw };
  }
}

/** The raw text of arguments that did not parse, or undefined for a valid input. */
export function invalidToolArgs(input: unknown): string | undefined {
  if (typeof input !== 'object' || input === null) return undefined;
  const raw = (input as Record<string, unknown>)[INVALID_JSON_KEY];
  return typeof raw === 'string' ? raw : undefined;
}
