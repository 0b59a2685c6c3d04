import { readFile } from 'node:fs/promises';
import { relative } from 'node:path';
import { isLockOwnerAlive, readLockOwner } from '../lock/owner-lock.js';
import { writeFileAtomic } from '../store/atomic-write.js';
import type { VaultLayout } from '../vault/layout.js';
import { renderDashboard } from './dashboard.js';
import type { VaultView } from './view.js';

/** The header a live daemon writes: a page that still says it while no daemon runs was left by a forced exit. */
const LIVE_HEADER = /by the daemon \(pid \d+, (?:starting|running|draining),/;

/**
 * Rewrites a Dashboard.md that a daemon killed without its drain (kill -9, power loss) left saying
 * it runs, from `view` (no daemon). Only then, and only while no daemon holds the vault: the page is
 * the daemon's, and a starting daemon writes its own. Returns whether the page was rewritten.
 */
export async function correctStaleDashboard(layout: VaultLayout, view: VaultView, nowMs: number): Promise<boolean> {
  if (layout.dashboard === null || view.daemon !== null) return false;
  const text = await readFile(layout.dashboard, 'utf8').catch(() => null);
  if (text === null || !LIVE_HEADER.test(text.split('\n', 4).join('\n'))) return false;
  const owner = await readLockOwner(layout.lockFile).catch(() => null);
  if (owner !== null && isLockOwnerAlive(owner)) return false;
  const folders = {
    approved: relative(layout.root, layout.approved),
    done: relative(layout.root, layout.done),
    rejected: relative(layout.root, layout.rejected),
    review: relative(layout.root, layout.review),
  };
  await writeFileAtomic(layout.dashboard, renderDashboard(view, folders, nowMs));
  return true;
}
