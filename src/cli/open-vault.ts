import { resolve } from 'node:path';
import type { WiggumConfig } from '../config/config.js';
import { loadConfigCached } from '../config/cache.js';
import { requireVault } from '../vault/find-root.js';
import type { VaultLayout } from '../vault/layout.js';
import { vaultLayout } from '../vault/layout.js';

export interface VaultOptions {
  vault?: string;
  config?: string;
}

/**
 * The vault (--vault, else the current folder), its merged configuration (cached) and its layout.
 * A folder that is not a vault is a usage error before anything is read or written.
 */
export async function openVault(options: VaultOptions): Promise<{ config: WiggumConfig; layout: VaultLayout }> {
  const root = resolve(options.vault ?? process.cwd());
  await requireVault(root);
  const config = await loadConfigCached({
    vault: root,
    ...(options.config === undefined ? {} : { file: options.config }),
  });
  return { config, layout: vaultLayout(root, config) };
}
