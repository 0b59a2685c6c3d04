import type { Mount } from './mount.js';

/**
 * Everything the mount plan is made of, every path absolute and real (symlinks resolved by the
 * caller with realpath, and only for paths wiggum or the person chose: nothing inside a repository
 * is followed to decide what is mounted).
 */
export interface MountPlanInput {
  /** The real home; null when there is none worth hiding (unset, or `/`). */
  home: string | null;
  /** The harness's private home, shown at `home` (writable), or hidden home when null. */
  privateHome: string | null;
  /** Private folders shown in place of an agent's own folder that a variable moved (agent-homes.ts). */
  replaced: { source: string; target: string }[];
  /** The run's private temp folder, shown at /tmp. */
  privateTmp: string;
  /** The vault: hidden, with the run's own places shown again inside it. */
  vault: string;
  /**
   * Where the person's repositories live (`vault.allowed_workdirs`): hidden, so the agent reads no
   * other repository than its own; the task's workdir (and what else is given) is shown again inside.
   */
  repositories: string[];
  /** wiggum's folder in the vault (`.wiggum/`): hidden again when the workdir holds it (wiggum ralph). */
  state: string;
  /** The task's worktree or workdir: writable. */
  workdir: string;
  /** The agent's memory for this run (its scratch folder; `.ralph/` lives in the workdir): writable. */
  memory: string[];
  /**
   * Folders the agent's command needs (the PATH entries of its environment, the real folder of its
   * command, its package's): shown again read-only where they lie under a hidden folder (never the
   * hidden folder itself), left alone elsewhere.
   */
  tools: string[];
  /** Files of the real home shown read-only at the same place in the private home (`home_files` with mode ro). */
  homeFiles: string[];
  /** `sandbox.read_only`, `sandbox.writable`, `sandbox.hidden`, resolved. */
  readOnly: string[];
  writable: string[];
  hidden: string[];
  /** Added by other parts (git's mounts of a worktree's shared `.git`), applied over the rest in this order. */
  extra: Mount[];
}

/** The folders every confined run hides besides the home and the vault; /tmp is replaced by the private one. */
const PRIVATE_TMP = '/tmp';

/**
 * Pure: what the agent sees, in the order bubblewrap applies it. A mount at a deeper path comes
 * after every mount at a path above it (sorted by depth, stable), so nested hides and binds come out
 * right: the vault is hidden, then the worktree inside it is shown again writable; a folder hidden
 * inside a writable one is hidden after it. Of two mounts at one path the later in this list wins:
 * hides and replacements first, then read-only tools and files, what the person shows read-only,
 * the run's writable places, what the person hides. The extra mounts follow all of them, as given.
 */
export function mountPlan(input: MountPlanInput): Mount[] {
  const covers: Mount[] = [{ kind: 'rw', source: input.privateTmp, target: PRIVATE_TMP }];
  if (input.home !== null)
    covers.push(
      input.privateHome === null
        ? { kind: 'hide', target: input.home }
        : { kind: 'rw', source: input.privateHome, target: input.home },
    );
  covers.push({ kind: 'hide', target: input.vault });
  // Never `/` itself: hiding the root would hide the system the agent runs on.
  for (const root of input.repositories) if (root !== '/') covers.push({ kind: 'hide', target: root });
  for (const { source, target } of input.replaced) covers.push({ kind: 'rw', source, target });
  const hidden = [...input.hidden, ...shadowedByWorkdir(input)].map((target): Mount => ({ kind: 'hide', target }));
  const writable: Mount[] = [input.workdir, ...input.memory, ...input.writable].map((path) => rw(path));
  const hiddenRoots = [...covers, ...hidden].map((mount) => mount.target);
  const shownRoots = writable.map((mount) => mount.target);
  // A tool folder that is itself a hidden root (the home, the vault: a package.json or a PATH entry
  // there) is never shown again whole; what it holds of the tool is shown by the deeper folders.
  const tools = unique(input.tools)
    .filter((path) => underAny(path, hiddenRoots) && !hiddenRoots.includes(path) && !underAny(path, shownRoots))
    .map((path) => ro(path));
  const ordered = [
    ...covers,
    ...tools,
    ...input.homeFiles.map((path) => ro(path)),
    ...input.readOnly.map((path) => ro(path)),
    ...writable,
    // What the person hides stays hidden, even a writable place itself.
    ...hidden,
  ];
  // The extra mounts come after all of these, in their own order: git's start by showing the
  // repository's whole `.git` again (read-only) where a hide above covered it.
  return [...byDepth(lastAtEachTarget(ordered)), ...input.extra];
}

/**
 * Pure: what the writable workdir would show again of the vault: a vault inside the repository
 * the task works in, or (the vault the repository itself, as for wiggum ralph) wiggum's folder,
 * whose config and records an agent must never write.
 */
function shadowedByWorkdir(input: MountPlanInput): string[] {
  if (input.vault !== input.workdir && isUnder(input.vault, input.workdir)) return [input.vault];
  return isUnder(input.state, input.workdir) ? [input.state] : [];
}

/** Pure: whether `path` is `root` or inside it (both absolute and normalized). */
export function isUnder(path: string, root: string): boolean {
  return path === root || root === '/' || path.startsWith(`${root}/`);
}

function underAny(path: string, roots: readonly string[]): boolean {
  return roots.some((root) => isUnder(path, root));
}

function ro(path: string): Mount {
  return { kind: 'ro', source: path, target: path };
}

function rw(path: string): Mount {
  return { kind: 'rw', source: path, target: path };
}

function unique(paths: readonly string[]): string[] {
  return [...new Set(paths)];
}

/** Of several mounts at one target, the last; kept at the place of the first, so equal depths keep their order. */
function lastAtEachTarget(mounts: readonly Mount[]): Mount[] {
  const last = new Map<string, Mount>();
  for (const mount of mounts) last.set(mount.target, mount);
  const seen = new Set<string>();
  const result: Mount[] = [];
  for (const mount of mounts) {
    if (seen.has(mount.target)) continue;
    seen.add(mount.target);
    result.push(last.get(mount.target) ?? mount);
  }
  return result;
}

function depth(path: string): number {
  return path === '/' ? 0 : path.split('/').length - 1;
}

function byDepth(mounts: readonly Mount[]): Mount[] {
  return mounts
    .map((mount, index) => ({ mount, index }))
    .sort((a, b) => depth(a.mount.target) - depth(b.mount.target) || a.index - b.index)
    .map(({ mount }) => mount);
}
