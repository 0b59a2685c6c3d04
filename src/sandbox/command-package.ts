import { stat } from 'node:fs/promises';
import { dirname, sep } from 'node:path';

/**
 * The folder of the package an agent's command belongs to, which it needs whole (its own modules,
 * its dependencies, what it vendors) besides the command's folder: for a command installed under a
 * `node_modules` folder (npm -g, nvm, a project's install, pnpm's store), the outermost such
 * folder, where its dependencies were installed (hoisted or linked); otherwise the nearest folder
 * above the command holding a `package.json` (a checkout of the package). Null: neither, or only
 * `/`. `real` is the command's real path.
 */
export async function commandPackage(real: string): Promise<string | null> {
  const installed = outermostNodeModules(real);
  if (installed !== null) return installed;
  for (let dir = dirname(real); dir !== dirname(dir); dir = dirname(dir)) {
    if (await isFile(`${dir}/package.json`)) return dir;
  }
  return null;
}

/** Pure: the outermost `node_modules` folder `path` lies in, or null. */
export function outermostNodeModules(path: string): string | null {
  const parts = path.split(sep);
  const at = parts.indexOf('node_modules');
  return at === -1 ? null : parts.slice(0, at + 1).join(sep);
}

async function isFile(path: string): Promise<boolean> {
  return (await stat(path).catch(() => null))?.isFile() ?? false;
}
