/**
 * The session's secrets: the provider key, kept from every command's environment and
 * scrubbed from every tool's output before the model (or the result store) sees it.
 */
import { MIN_SECRET_LENGTH, PROVIDER_KEY_VARIABLES } from '../config/key-variables.js';
import { scrubForms, secretForms } from '../platform/secret-forms.js';
import type { ChildSecrets } from '../platform/child-env.js';
import type { OutputLimiter } from '../tools/registry.js';
import { redactKeyShapes } from './transcript.js';

export interface SessionSecrets extends ChildSecrets {
  /** Every value in every encoding the scrubber looks for (secret-forms.ts), made once. */
  forms: readonly string[];
}

/** The key in use (from the environment or settings) and the values of the key variables. */
export function sessionSecrets(env: NodeJS.ProcessEnv, apiKey: string): SessionSecrets {
  const values = [apiKey, ...PROVIDER_KEY_VARIABLES.map((name) => env[name]?.trim() ?? '')];
  const secrets = [...new Set(values.filter((value) => value.length >= MIN_SECRET_LENGTH))];
  return {
    names: PROVIDER_KEY_VARIABLES,
    values: secrets,
    forms: [...new Set(secrets.flatMap(secretForms))].sort((a, b) => b.length - a.length),
  };
}

/**
 * Text without the session's secrets: anything shaped like a key, and every value of the key in
 * use and the key variables, as it is or encoded (base64, hex, URL), line breaks or not.
 */
export function scrubSecrets(text: string, secrets: SessionSecrets): string {
  return scrubForms(redactKeyShapes(text), secrets.forms);
}

/** A limiter that scrubs the output first, so what is stored for read_result is scrubbed too. */
export function scrubbingLimiter(inner: OutputLimiter, scrub: (text: string) => string): OutputLimiter {
  return (output, toolName) => inner({ ...output, content: scrub(output.content) }, toolName);
}
