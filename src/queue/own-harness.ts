import type { WiggumConfig } from '../config/config.js';
import type { JobSettings } from './settings-data.js';

/**
 * Why this worker cannot run a job's settings with its own config, or null when it can: the job
 * names its harness and verify check, and only the worker's config says what they run (the command,
 * its arguments, its environment and its sandbox). A job that names one the worker lacks is not
 * this worker's: it goes back to the queue for a worker that has it. Pure.
 */
export function missingDefinition(settings: JobSettings, config: WiggumConfig): string | null {
  const { harness, verify } = settings;
  if (!Object.hasOwn(config.harnesses, harness.name))
    return `harness ${harness.name} is not in this worker's config (its harnesses: ${namesOf(config.harnesses)}): define it under harnesses: in the worker's .wiggum/config.yaml or --config file`;
  if (verify !== null && !Object.hasOwn(config.checks, verify.name))
    return `check ${verify.name} is not in this worker's config (its checks: ${namesOf(config.checks)}): define it under checks: in the worker's config`;
  return null;
}

function namesOf(defined: Record<string, unknown>): string {
  const names = Object.keys(defined);
  return names.length === 0 ? 'none' : names.join(', ');
}

/**
 * The config a worker runs a job with: its own harnesses and checks (a job carries none), the
 * job's harness as the default (the host resolved which one the task uses), and the job's limits.
 */
export function runConfigOf(config: WiggumConfig, settings: JobSettings, runsRoot: string): WiggumConfig {
  return {
    ...config,
    allowedWorkdirs: [runsRoot],
    harness: { ...config.harness, defaultName: settings.harness.name },
    loop: settings.loop,
    memory: { ...config.memory, backend: 'disk', inWorkdir: false },
    git: { ...config.git, enabled: true },
  };
}
