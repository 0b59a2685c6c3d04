import type { Stats } from 'node:fs';

/**
 * Why a file in Approved/ is refused for what kind of file it is, whatever it holds: a symbolic
 * link could point anywhere, and a file with another hard link is what wiggum's own move to Done/
 * leaves for a moment (it links the new name, then unlinks the old one). The daemon, `wiggum run`,
 * `validate` and `status` all decide with this one function, so they never disagree about a file.
 */
export type LinkRefusal = 'symlink' | 'hard-link';

/** The refusal of a file as `lstat` (never `stat`) saw it; null when it is a plain file with one name. */
export function linkRefusalOf(stats: Pick<Stats, 'isSymbolicLink' | 'isFile' | 'nlink'>): LinkRefusal | null {
  if (stats.isSymbolicLink()) return 'symlink';
  return stats.isFile() && stats.nlink > 1 ? 'hard-link' : null;
}

/** What is wrong with a refused file and how to fix it, without its name (status, Dashboard and log lines). */
export function linkRefusalText(reason: LinkRefusal): string {
  return reason === 'symlink'
    ? 'a symbolic link, not run: a link could point anywhere. Move the task file itself into Approved/'
    : 'a hard link (the file has another name), not run: moving it to Done/ would leave the other name behind with a stale copy. ' +
        'Put a copy of its own in its place (cp FILE FILE.tmp && mv FILE.tmp FILE)';
}
