import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import type { FinishedEntry } from './status.js';
import { RECENT } from './status.js';

/**
 * "Recently finished" across a restart: the previous daemon's status.json already lists the last
 * tasks that finished, so the next daemon starts from that list (read before it writes its own)
 * instead of scanning Done/ and Rejected/, which may hold thousands of files. An entry whose file
 * is no longer where it ended (moved back to Approved/, deleted) is dropped.
 */
export async function readRecent(statusFile: string): Promise<FinishedEntry[]> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(await readFile(statusFile, 'utf8'));
  } catch {
    return []; // No earlier daemon, or a status file cut short: nothing to remember.
  }
  return restorableRecent(parsed, existsSync);
}

/** The entries of an earlier status file worth listing again: well-formed, newest first, their files still there. */
export function restorableRecent(status: unknown, exists: (file: string) => boolean, limit = RECENT): FinishedEntry[] {
  const list = typeof status === 'object' && status !== null ? (status as { recent?: unknown }).recent : undefined;
  if (!Array.isArray(list)) return [];
  const entries: FinishedEntry[] = [];
  for (const item of list) {
    const entry = finishedEntry(item);
    if (entry !== null && exists(entry.file)) entries.push(entry);
  }
  return entries.sort((a, b) => b.atMs - a.atMs).slice(0, limit);
}

function finishedEntry(item: unknown): FinishedEntry | null {
  if (typeof item !== 'object' || item === null) return null;
  const { id, status, file, iterations, reason, atMs } = item as Record<string, unknown>;
  if (status !== 'done' && status !== 'rejected') return null;
  if (typeof file !== 'string' || typeof iterations !== 'number' || typeof atMs !== 'number' || !Number.isFinite(atMs))
    return null;
  if (id !== null && typeof id !== 'string') return null;
  return { id, status, file, iterations, ...(typeof reason === 'string' ? { reason } : {}), atMs };
}
