import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { writeFileAtomic } from '../store/atomic-write.js';
import type { WiggumConfig } from './config.js';
import { DEFAULT_CONFIG_FILE } from './sources.js';
import type { ConfigSources } from './sources.js';

/** Bumped when the compiled configuration changes shape, so no older cache is taken for a newer one. */
const FORMAT = 2; // 2: written 0600 (an older cache, maybe 0644, is written anew)

interface CacheFile {
  key: string;
  config: WiggumConfig;
}

/**
 * The configuration for short commands (`status`, `stop`, `resume`, `retry`, `context`): the same
 * as `loadConfig`, but remembered in `.wiggum/config-cache.json`, so that a command whose config
 * has not changed loads neither the YAML parser nor the schemas (half of `wiggum status`'s time).
 * The cache is keyed by the path and full content of every config file, the overrides and the home
 * folder (`~` in paths), so an edit, a new vault config or a wiggum upgrade is never missed; a
 * config that does not load is never cached, and the full loader reports it as usual.
 */
export async function loadConfigCached(sources: ConfigSources): Promise<WiggumConfig> {
  const key = cacheKey(sources);
  const file = sources.vault === undefined ? null : join(resolve(sources.vault), '.wiggum', 'config-cache.json');
  if (file !== null && key !== null) {
    try {
      const cached = JSON.parse(readFileSync(file, 'utf8')) as Partial<CacheFile>;
      if (cached.key === key && cached.config !== undefined) return cached.config;
    } catch {
      // No cache yet, or an unreadable one: load and write it anew.
    }
  }
  const { loadConfig } = await import('./load.js');
  const config = await loadConfig(sources);
  if (file !== null && key !== null && existsSync(join(file, '..'))) {
    // Not fsynced: losing it costs one slow start, nothing else. Owner-only: it holds the notifiers'
    // URLs (keys in their paths) and the harnesses' env values.
    await writeFileAtomic(file, JSON.stringify({ key, config } satisfies CacheFile), {
      durable: false,
      ownerOnly: true,
    }).catch(() => undefined);
  }
  return config;
}

/** A hash of everything the compiled configuration depends on, or null if a file cannot be read. */
function cacheKey(sources: ConfigSources): string | null {
  const files = [{ path: DEFAULT_CONFIG_FILE, required: true }];
  if (sources.vault !== undefined)
    files.push({ path: join(resolve(sources.vault), '.wiggum', 'config.yaml'), required: false });
  if (sources.file !== undefined) files.push({ path: resolve(sources.file), required: true });
  const hash = createHash('sha256').update(
    JSON.stringify({ format: FORMAT, home: homedir(), overrides: sources.overrides ?? null }),
  );
  for (const { path, required } of files) {
    let text: string | null = null;
    try {
      text = readFileSync(path, 'utf8');
    } catch {
      // A missing vault config is a valid state; a missing required file is the loader's to report.
      if (required) return null;
    }
    hash.update(`\0${path}\0${text ?? '(none)'}`);
  }
  return hash.digest('hex');
}
