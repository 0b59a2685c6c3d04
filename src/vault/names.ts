/** Which names in Approved/ are tasks and stop flags: cheap to import (no parser behind it). */

/**
 * Whether a name in Approved/ can be a task file: `*.md`, and not a dotfile, an editor's temp,
 * lock or backup file, or a sync tool's conflict copy (which would run a task twice). Most editor
 * files (`.foo.md.swp`, `foo.md~`, `#foo.md#`, `foo.md.tmp`, `foo.md.crswap`, wiggum's own
 * `.foo.md.<pid>.<hex>.tmp`) already fail the `.md` or the dotfile rule.
 */
export function isTaskFileName(name: string): boolean {
  if (!name.endsWith('.md') || name.length <= '.md'.length) return false;
  if (name.startsWith('.') || name.startsWith('~') || name.startsWith('#')) return false;
  if (name.endsWith('.tmp.md')) return false;
  return !CONFLICT_COPY_MARKERS.some((marker) => name.includes(marker));
}

/** `foo.stop` stops `foo.md`; a dotfile stops nothing (no task can be named `.foo.md`). */
export function isStopFlagName(name: string): boolean {
  return name.endsWith('.stop') && name.length > '.stop'.length && !name.startsWith('.');
}

const CONFLICT_COPY_MARKERS = ['.sync-conflict-', ' (conflicted copy', ' (Conflicted copy'];

/** `foo.stop` → `foo`, the stem of the task file it stops. */
export function flagStemOf(name: string): string {
  return name.slice(0, -'.stop'.length);
}

/** `foo.md` → `foo`, the stem its stop flag `foo.stop` is named by. */
export function stemOf(name: string): string {
  return name.endsWith('.md') ? name.slice(0, -'.md'.length) : name;
}
