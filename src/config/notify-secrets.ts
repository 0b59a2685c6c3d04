import type { NotifierDefinition } from './notifier.js';

/** A webhook whose `secret_env` names a variable that is not set (or empty) in `env`. */
export interface MissingSecret {
  /** Its place under `notify:` (0-based), as the config's problems name it (`notify.0`). */
  index: number;
  label: string;
  variable: string;
}

/**
 * The webhooks that cannot sign with this environment. Not a config error: the shell running
 * `wiggum validate` may lack a secret that the daemon's service has; validate warns, and the
 * daemon says it at start (notify.secret-missing) and in each failed attempt.
 */
export function missingSecrets(notifiers: readonly NotifierDefinition[], env: NodeJS.ProcessEnv): MissingSecret[] {
  return notifiers.flatMap((notifier, index) =>
    notifier.kind === 'webhook' && (env[notifier.secretEnv] ?? '') === ''
      ? [{ index, label: notifier.label, variable: notifier.secretEnv }]
      : [],
  );
}
