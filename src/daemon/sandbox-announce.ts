import type { WiggumConfig } from '../config/config.js';
import type { Logger } from '../log/logger.js';
import { sandboxTools } from '../sandbox/availability.js';
import { sandboxStatusOf, unconfinedWarning } from '../sandbox/decision.js';
import type { SandboxStatus } from '../sandbox/decision.js';

/**
 * The vault's sandbox as the daemon starts: what status.json, `status` and the Dashboard say, and
 * one warning in the log when agents will run unconfined because bubblewrap cannot run here (every
 * such run says it again).
 */
export async function announceSandbox(
  config: WiggumConfig,
  env: NodeJS.ProcessEnv,
  logger: Logger,
): Promise<SandboxStatus> {
  const { availability } = await sandboxTools(env);
  const status = sandboxStatusOf(config.sandbox, availability);
  if (status.state === 'unconfined' && availability.kind === 'none')
    logger.warn({ event: 'sandbox.unconfined', why: availability.why }, unconfinedWarning(availability.why));
  else if (status.state === 'unavailable')
    logger.warn(
      { event: 'sandbox.unconfined', why: availability.kind === 'none' ? availability.why : '' },
      `sandbox: ${status.text}`,
    );
  return status;
}
