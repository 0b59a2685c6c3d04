import { parseAllowEntry } from './allow-list.js';
import type { NetworkMode, RawHarnessSandbox, RawSandbox, SandboxMode } from './sandbox-schema.js';

/** A file of the real home an agent needs (its login): copied into its private home, or shown read-only. */
export interface HomeFile {
  /** Relative to the home. */
  path: string;
  mode: 'copy' | 'ro';
}

/**
 * How one harness's runs are confined (docs/sandbox.md): the vault-wide `sandbox:` with the
 * harness's own `harnesses.NAME.sandbox` over it. A task file has no say: it cannot loosen it.
 */
export interface SandboxSettings {
  mode: SandboxMode;
  /** Fail closed: a run that cannot be confined does not start (its task waits). */
  required: boolean;
  network: NetworkMode;
  allow: string[];
  /** Absolute or `~/…` paths, as written; the mount plan resolves them. */
  readOnly: string[];
  writable: string[];
  hidden: string[];
  /** Besides the built-in agent's own (sandbox/home-files.ts). */
  homeFiles: HomeFile[];
  limits: SandboxLimits;
}

/** What one run may use; 0: no limit of that kind. */
export interface SandboxLimits {
  /** Processes and threads at once (a pids cgroup, else RLIMIT_NPROC). */
  processes: number;
  /** Open files per process (RLIMIT_NOFILE). */
  openFiles: number;
  /** The largest file a process may write (RLIMIT_FSIZE). */
  fileSizeBytes: number;
}

export function compileSandbox(raw: RawSandbox): SandboxSettings {
  return {
    mode: raw.mode,
    required: raw.required,
    network: raw.network,
    allow: raw.allow,
    readOnly: raw.read_only,
    writable: raw.writable,
    hidden: raw.hidden,
    homeFiles: raw.home_files,
    limits: {
      processes: raw.limits.processes,
      openFiles: raw.limits.open_files,
      fileSizeBytes: raw.limits.file_size,
    },
  };
}

/**
 * Pure: a harness's settings: each of its own keys replaces the vault's, except the lists of paths
 * and home files, which add to them (a harness may show more of the home, never less of what the
 * vault hides).
 */
export function harnessSandbox(vault: SandboxSettings, own: RawHarnessSandbox | undefined): SandboxSettings {
  if (own === undefined) return vault;
  return {
    mode: own.mode ?? vault.mode,
    required: own.required ?? vault.required,
    network: own.network ?? vault.network,
    allow: own.allow ?? vault.allow,
    readOnly: [...vault.readOnly, ...(own.read_only ?? [])],
    writable: [...vault.writable, ...(own.writable ?? [])],
    hidden: [...vault.hidden, ...(own.hidden ?? [])],
    homeFiles: [...vault.homeFiles, ...(own.home_files ?? [])],
    limits: {
      processes: own.limits?.processes ?? vault.limits.processes,
      openFiles: own.limits?.open_files ?? vault.limits.openFiles,
      fileSizeBytes: own.limits?.file_size ?? vault.limits.fileSizeBytes,
    },
  };
}

/**
 * Pure: what is wrong with one resolved setting, or null. `required` with `mode: off` can never
 * run; an `allow` entry that names no host and port (allow-list.ts) would leave the agent without
 * what it was meant to reach.
 */
export function sandboxProblem(settings: SandboxSettings): { key: 'required' | 'allow'; message: string } | null {
  if (settings.required && settings.mode === 'off')
    return {
      key: 'required',
      message:
        'sandbox.required: true cannot go with mode: off (nothing would ever run): set mode to auto or bwrap, or required to false',
    };
  for (const entry of settings.allow) {
    const parsed = parseAllowEntry(entry);
    if (typeof parsed === 'string') return { key: 'allow', message: `sandbox.allow: ${parsed}` };
  }
  return null;
}
