import { homedir } from 'node:os';
import { isAbsolute, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The built-in defaults, shipped next to `dist/` and `src/`. */
export const DEFAULT_CONFIG_FILE = fileURLToPath(new URL('../../config/default.yaml', import.meta.url));

export interface ConfigSources {
  /** The vault whose `.wiggum/config.yaml` is merged over the defaults, if it exists. */
  vault?: string;
  /** `--config FILE`, merged last; it must exist. */
  file?: string;
  /** Values from command-line flags, merged over everything (same shape as the YAML). */
  overrides?: Record<string, unknown>;
}

/** A path from a config file: `~` is the home folder, a relative path is relative to `base`. */
export function resolvePath(path: string, base: string): string {
  if (path === '~' || path.startsWith('~/')) return join(homedir(), path.slice(1));
  return isAbsolute(path) ? path : resolve(base, path);
}
