import type { SandboxSettings } from '../config/sandbox-settings.js';
import type { SandboxTools } from '../sandbox/availability.js';
import { confinementOf, unconfinedWarning } from '../sandbox/decision.js';
import type { CheckResult } from './checks.js';

const INSTALL = 'install bubblewrap (apt-get install bubblewrap, dnf install bubblewrap) on the PATH of wiggum';

/**
 * Pure: the `sandbox` line of doctor, from the vault's settings and what the probe found (it
 * started a trivial process under bubblewrap, never an agent). ok when agents run confined; warn
 * when they run unconfined (mode off, or auto without bubblewrap); FAIL when they must be confined
 * and cannot be (their tasks wait).
 */
export function judgeSandbox(settings: SandboxSettings, tools: SandboxTools, root: boolean): CheckResult {
  const confinement = confinementOf(settings, tools.availability);
  switch (confinement.kind) {
    case 'bwrap': {
      const version = tools.availability.kind === 'bwrap' ? tools.availability.version : 'bubblewrap';
      return {
        check: 'sandbox',
        status: 'ok',
        message: `${version} (${confinement.path}) started a trivial process confined; mode ${settings.mode}, network ${settings.network}; ${limitsText(settings, tools, root)}`,
        fix: null,
      };
    }
    case 'refused':
      return { check: 'sandbox', status: 'fail', message: confinement.message, fix: INSTALL };
    case 'unconfined':
      return confinement.reason === 'off'
        ? {
            check: 'sandbox',
            status: 'warn',
            message: 'sandbox.mode is off: agents run unconfined, with every right of this user',
            fix: 'set sandbox.mode: auto (the default) to confine them where bubblewrap is installed',
          }
        : { check: 'sandbox', status: 'warn', message: unconfinedWarning(confinement.why), fix: INSTALL };
  }
}

function limitsText(settings: SandboxSettings, tools: SandboxTools, root: boolean): string {
  const { limits } = settings;
  const processes =
    limits.processes === 0
      ? 'no process limit'
      : tools.cgroup !== null
        ? `at most ${limits.processes} processes (a pids cgroup, v${tools.cgroup.version})`
        : `at most ${limits.processes} processes by RLIMIT_NPROC only (no writable pids cgroup${root ? ': it binds nothing for root' : ''})`;
  const files = `open files ${limits.openFiles || 'unlimited'}, file size ${limits.fileSizeBytes || 'unlimited'} bytes`;
  return `${processes}, ${files}`;
}
