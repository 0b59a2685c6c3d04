import type { SandboxSettings } from '../config/sandbox-settings.js';

/** Whether this machine can confine a run, as `availability.ts` found out. */
export type SandboxAvailability =
  | { kind: 'bwrap'; path: string; version: string }
  | { kind: 'none'; /** What is missing, for a person: "bwrap is not on PATH", its error. */ why: string };

/**
 * How one run goes: confined by bubblewrap; unconfined because the settings say so (`off`) or
 * because nothing can confine it (`missing`, with mode auto: said loudly); or not at all
 * (`refused`: required, or mode bwrap, without bubblewrap).
 */
export type Confinement =
  | { kind: 'bwrap'; path: string }
  | { kind: 'unconfined'; reason: 'off' | 'missing'; why: string }
  | { kind: 'refused'; message: string };

/** Pure: how a run with these settings goes on a machine with this availability. */
export function confinementOf(
  settings: Pick<SandboxSettings, 'mode' | 'required'>,
  available: SandboxAvailability,
): Confinement {
  if (settings.mode === 'off') return { kind: 'unconfined', reason: 'off', why: 'sandbox.mode is off' };
  if (available.kind === 'bwrap') return { kind: 'bwrap', path: available.path };
  if (settings.required || settings.mode === 'bwrap')
    return {
      kind: 'refused',
      message: `the sandbox is ${settings.required ? 'required (sandbox.required: true)' : 'bwrap (sandbox.mode: bwrap)'} but bubblewrap cannot run here: ${available.why}. Install bubblewrap (apt-get install bubblewrap, dnf install bubblewrap) on the PATH of wiggum; the task waits and starts once it can be confined`,
    };
  return { kind: 'unconfined', reason: 'missing', why: available.why };
}

/** Pure: how a run that went this way is named in its history (`sandbox`) and in `status ID`. */
export function confinementName(confinement: Confinement): 'bwrap' | 'off' | 'unconfined' {
  if (confinement.kind === 'bwrap') return 'bwrap';
  if (confinement.kind === 'unconfined' && confinement.reason === 'off') return 'off';
  return 'unconfined';
}

/** The warning of mode auto without bubblewrap: the log, `status`, the Dashboard and `doctor` say it alike. */
export function unconfinedWarning(why: string): string {
  return `agents run UNCONFINED: sandbox.mode is auto and bubblewrap cannot run here (${why}); install bubblewrap (apt-get install bubblewrap) to confine them, or set sandbox.mode: off to say this is meant`;
}

/** What `status`, the Dashboard and status.json say about the sandbox of the vault's agents. */
export interface SandboxStatus {
  /** confined: bubblewrap; unconfined: mode auto without it (a warning); off: by the settings; unavailable: required without it (tasks wait). */
  state: 'confined' | 'unconfined' | 'off' | 'unavailable';
  text: string;
}

/** Pure: the vault's sandbox as status says it, from its vault-wide settings and this machine. */
export function sandboxStatusOf(
  settings: Pick<SandboxSettings, 'mode' | 'required' | 'network'>,
  available: SandboxAvailability,
): SandboxStatus {
  const confinement = confinementOf(settings, available);
  switch (confinement.kind) {
    case 'bwrap':
      return {
        state: 'confined',
        text: `agents run confined (${available.kind === 'bwrap' ? available.version : 'bubblewrap'}, network ${settings.network})`,
      };
    case 'refused':
      return { state: 'unavailable', text: `tasks wait: ${confinement.message}` };
    case 'unconfined':
      return confinement.reason === 'off'
        ? { state: 'off', text: 'agents run unconfined (sandbox.mode: off)' }
        : { state: 'unconfined', text: `WARNING: ${unconfinedWarning(confinement.why)}` };
  }
}
