import { mkdir, readFile, readdir, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { systemErrorCode } from '../errors.js';
import { sweepStaleTemps } from '../store/stale-temps.js';
import { writeFileAtomic, writeFileAtomicSync } from '../store/atomic-write.js';
import { mkdirSync } from 'node:fs';

/**
 * One event waiting to reach one notifier: `.wiggum/outbox/<event id>.<notifier key>.json`, written
 * (durably) before the first attempt and removed after the delivery succeeded, so that a daemon
 * killed meanwhile sends it after its restart. `body` is the exact text sent, every time.
 */
export interface OutboxEntry {
  version: 1;
  id: string;
  notifier: string;
  event: string;
  createdAtMs: number;
  body: string;
}

export function entryFile(dir: string, entry: Pick<OutboxEntry, 'id' | 'notifier'>): string {
  return join(dir, `${entry.id}.${entry.notifier}.json`);
}

export async function writeEntry(dir: string, entry: OutboxEntry): Promise<void> {
  await mkdir(dir, { recursive: true, mode: 0o700 });
  // Owner-only: an event holds what a task said, and the notifier's own key names the URL it goes to.
  await writeFileAtomic(entryFile(dir, entry), `${JSON.stringify(entry)}\n`, { ownerOnly: true });
}

/** The same as {@link writeEntry}, for the last writes of a process that is crashing. */
export function writeEntrySync(dir: string, entry: OutboxEntry): void {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  writeFileAtomicSync(entryFile(dir, entry), `${JSON.stringify(entry)}\n`, { ownerOnly: true });
}

export async function removeEntry(dir: string, entry: OutboxEntry): Promise<void> {
  try {
    await unlink(entryFile(dir, entry));
  } catch (error) {
    if (systemErrorCode(error) !== 'ENOENT') throw error;
  }
}

/** What the outbox holds: the entries, oldest first, and the files that are not entries (named, not read). */
export async function readOutbox(dir: string): Promise<{ entries: OutboxEntry[]; unreadable: string[] }> {
  let names: string[];
  try {
    names = await readdir(dir);
  } catch (error) {
    if (systemErrorCode(error) === 'ENOENT') return { entries: [], unreadable: [] };
    throw error;
  }
  // Only this daemon writes here, and it holds the vault lock: a temp file is a write a crash cut.
  sweepStaleTemps(dir);
  const entries: OutboxEntry[] = [];
  const unreadable: string[] = [];
  for (const name of names.filter((n) => n.endsWith('.json') && !n.startsWith('.'))) {
    const entry = parseEntry(await readFile(join(dir, name), 'utf8').catch(() => ''));
    if (entry === null) unreadable.push(name);
    else entries.push(entry);
  }
  entries.sort((a, b) => a.createdAtMs - b.createdAtMs || a.id.localeCompare(b.id));
  return { entries, unreadable };
}

export function parseEntry(text: string): OutboxEntry | null {
  try {
    const value = JSON.parse(text) as Partial<OutboxEntry>;
    if (
      value.version === 1 &&
      typeof value.id === 'string' &&
      typeof value.notifier === 'string' &&
      typeof value.event === 'string' &&
      typeof value.createdAtMs === 'number' &&
      typeof value.body === 'string'
    )
      return value as OutboxEntry;
  } catch {
    // not JSON: said by the caller
  }
  return null;
}

/** How many of the oldest pending entries go when one more arrives for a notifier that may keep `max`. */
export function backlogOverflow(pending: number, max: number): number {
  return Math.max(0, pending + 1 - max);
}
