/** What a command must not inherit from outrider's own environment. */
export interface ChildSecrets {
  /** Variables never passed on (the provider key variables). */
  names: readonly string[];
  /** Values never passed on under any name, nor inside a longer value (the key in use). */
  values: readonly string[];
}

/** Names that hold a credential by convention: GITHUB_TOKEN, NPM_TOKEN, AWS_SECRET_ACCESS_KEY, … */
const CREDENTIAL_NAME = /API_?KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL|PRIVATE_KEY|ACCESS_KEY/i;

/**
 * A copy of `env` without the session's secrets. With `credentials` (a command no one
 * approved), every variable named like a credential goes too: a command that only reads
 * needs none, and its output goes to the model.
 */
export function withoutSecrets(
  env: NodeJS.ProcessEnv,
  secrets: ChildSecrets,
  options: { credentials: boolean },
): NodeJS.ProcessEnv {
  const names = new Set(secrets.names);
  const out: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(env)) {
    if (names.has(name)) continue;
    if (value !== undefined && secrets.values.some((secret) => value.includes(secret))) continue;
    if (options.credentials && CREDENTIAL_NAME.test(name)) continue;
    out[name] = value;
  }
  return out;
}
