import type { WiggumConfig } from '../config/config.js';
import { WiggumError } from '../errors.js';
import { sandboxTools } from '../sandbox/availability.js';
import { confinementOf } from '../sandbox/decision.js';

/**
 * Why a task on this harness cannot start now, or null: it must be confined (sandbox.required, or
 * mode bwrap) and bubblewrap cannot run here. The task is not rejected: it waits (the daemon's
 * scan keeps it in Approved/ with this message, vault/scan.ts) and starts once it can be confined.
 */
export async function sandboxRefusal(
  harnessName: string,
  config: WiggumConfig,
  env: NodeJS.ProcessEnv,
): Promise<WiggumError | null> {
  const harness = config.harnesses[harnessName];
  if (harness === undefined || harness.sandbox.mode === 'off') return null;
  const confinement = confinementOf(harness.sandbox, (await sandboxTools(env)).availability);
  if (confinement.kind !== 'refused') return null;
  return new WiggumError('E_SANDBOX_UNAVAILABLE', `harness ${harnessName}: ${confinement.message}`, {
    details: { harness: harnessName },
  });
}
