/**
 * One entry of what a confined agent sees of the file system, in the order it is applied: a later
 * mount covers what an earlier one put at or under its target. Every path is absolute.
 *
 * - `ro`: `source` visible at `target`, read-only.
 * - `rw`: `source` visible at `target`, writable.
 * - `hide`: `target` replaced by an empty, private, writable folder (a tmpfs): what was there is
 *   gone for the agent, and what it writes there never reaches the disk.
 */
export type Mount =
  | { kind: 'ro'; source: string; target: string }
  | { kind: 'rw'; source: string; target: string }
  | { kind: 'hide'; target: string };
