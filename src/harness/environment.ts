/**
 * The environment a harness runs with: only the allowlisted variables of wiggum's own environment,
 * then `extra` (the harness's configured `env` and the WIGGUM_* variables) on top.
 *
 * Why an allowlist: the daemon's environment can hold secrets meant for wiggum or for other tools
 * (deploy tokens, cloud credentials, a systemd unit's settings). An agent runs untrusted prompts
 * with shell access, so it gets only what the config names (`harness.env_allowlist`), never the
 * whole environment by default.
 */
export function harnessEnvironment(
  base: NodeJS.ProcessEnv,
  allowlist: string[],
  extra: Record<string, string>,
): Record<string, string> {
  const entries: [string, string][] = [];
  for (const name of allowlist) {
    // Each look into process.env is a call into C++: most names are unset, so only a string found
    // is checked to be the environment's own (not inherited from a polluted Object.prototype).
    const value = base[name];
    if (typeof value === 'string' && Object.hasOwn(base, name)) entries.push([name, value]);
  }
  for (const [name, value] of Object.entries(extra)) entries.push([name, value]);
  // fromEntries defines own properties, so a name like `__proto__` is a plain variable, not a prototype.
  return Object.fromEntries(entries);
}
