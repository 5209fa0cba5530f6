/**
 * The environment variables a provider key is read from. Outrider takes them out of its own
 * environment at start (start/hide-keys.ts), never passes them to a program it starts, and
 * scrubs their values from everything a tool returns.
 */
export const PROVIDER_KEY_VARIABLES: readonly string[] = ['ANTHROPIC_API_KEY', 'ANTHROPIC_AUTH_TOKEN', 'OPENAI_API_KEY'];

/** Shorter values are not treated as secrets: scrubbing them would mangle ordinary text (a local server's "no-key"). */
export const MIN_SECRET_LENGTH = 8;
