/**
 * The session's secrets: the provider key, kept from every command's environment and
 * scrubbed from every tool's output before the model (or the result store) sees it.
 */
import { scrubSecret } from '../providers/errors.js';
import type { ChildSecrets } from '../tools/child-env.js';
import type { OutputLimiter } from '../tools/registry.js';
import { redactSecrets } from './transcript.js';

/** The variables a provider key is read from. */
const PROVIDER_KEY_VARIABLES = ['ANTHROPIC_API_KEY', 'ANTHROPIC_AUTH_TOKEN', 'OPENAI_API_KEY'];
/** Shorter values are not treated as secrets: scrubbing them would mangle ordinary text (a local server's "no-key"). */
const MIN_SECRET_LENGTH = 8;

export type SessionSecrets = ChildSecrets;

/** The key in use (from the environment or settings) and the values of the key variables. */
export function sessionSecrets(env: NodeJS.ProcessEnv, apiKey: string): SessionSecrets {
  const values = [apiKey, ...PROVIDER_KEY_VARIABLES.map((name) => env[name]?.trim() ?? '')];
  return {
    names: PROVIDER_KEY_VARIABLES,
    values: [...new Set(values.filter((value) => value.length >= MIN_SECRET_LENGTH))],
  };
}

/** Text without the session's secrets: the transcript's redaction (key shapes, the key variables) and every value. */
export function scrubSecrets(text: string, secrets: SessionSecrets, env: NodeJS.ProcessEnv): string {
  return redactSecrets(
    secrets.values.reduce((out, secret) => scrubSecret(out, secret), text),
    env,
  );
}

/** A limiter that scrubs the output first, so what is stored for read_result is scrubbed too. */
export function scrubbingLimiter(inner: OutputLimiter, scrub: (text: string) => string): OutputLimiter {
  return (output, toolName) => inner({ ...output, content: scrub(output.content) }, toolName);
}
