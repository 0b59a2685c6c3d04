import { spawnSync } from 'node:child_process';
import {
  chmodSync,
  copyFileSync,
  cpSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  statSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, sep } from 'node:path';
import { REPO_ROOT, requireBuild } from './child.js';

/** A user the tests run wiggum as (when they run as root and need file modes to apply). */
export interface OtherUser {
  uid: number;
  gid: number;
}

/**
 * What another user needs to run the built CLI, copied out of this checkout: a clone may sit
 * where only its owner can go (a `mktemp -d` folder is 0700, a home folder often 0750), and a
 * user who cannot walk the path to dist/cli/main.js cannot run it.
 */
export interface StagedBuild {
  /** The folder everything is in; every folder from / down to it can be walked by anyone. */
  root: string;
  /** The node binary to run (process.execPath if the user can run it, else a copy). */
  node: string;
  /** The staged dist/cli/main.js. */
  cli: string;
  /** The staged fake agent (test/fixtures/agents/fake-agent.mjs). */
  fakeAgent: string;
  /** Environment the user's processes need: a PATH that finds a `node` they can run (the fake agent's shebang). */
  env: NodeJS.ProcessEnv;
  /** Removes the staged copy. */
  release(): void;
}

/**
 * Copies the built CLI (dist/, config/, package.json), the production dependencies it loads, and
 * the fake agent into a fresh folder under the system temp dir that `user` can read and walk.
 * Needs `npm run build` first. The staged CLI is the same build, only at a path `user` can reach.
 */
export function stageBuildFor(user: OtherUser): StagedBuild {
  requireBuild();
  const root = mkdtempSync(join(tmpdir(), 'wiggum-staged-'));
  try {
    for (const entry of ['dist', 'config', 'package.json'])
      cpSync(join(REPO_ROOT, entry), join(root, entry), { recursive: true });
    for (const pkg of productionPackages(REPO_ROOT)) copyPackage(pkg, join(root, relative(REPO_ROOT, pkg)));
    const fakeAgent = join(root, 'test', 'fixtures', 'agents', 'fake-agent.mjs');
    mkdirSync(dirname(fakeAgent), { recursive: true });
    copyFileSync(join(REPO_ROOT, 'test', 'fixtures', 'agents', 'fake-agent.mjs'), fakeAgent);
    const node = canRun(user, process.execPath) ? process.execPath : copyNode(root);
    openToAll(root);
    requireWalkable(root);
    const env = { PATH: [dirname(node), process.env.PATH ?? ''].join(':') };
    return {
      root,
      node,
      cli: join(root, 'dist', 'cli', 'main.js'),
      fakeAgent,
      env,
      release: () => rmSync(root, { recursive: true, force: true }),
    };
  } catch (error) {
    rmSync(root, { recursive: true, force: true });
    throw error;
  }
}

/** Folders of the packages `dependencies` pull in, transitively, resolved as node does (nearest node_modules up the tree). */
function productionPackages(from: string): string[] {
  const found = new Set<string>();
  const visit = (dir: string): void => {
    const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as Record<
      string,
      Record<string, string> | undefined
    >;
    const required = Object.keys(manifest.dependencies ?? {});
    const optional = [
      ...Object.keys(manifest.optionalDependencies ?? {}),
      ...Object.keys(manifest.peerDependencies ?? {}),
    ];
    for (const name of [...required, ...optional]) {
      const pkg = resolvePackage(dir, name);
      if (pkg === undefined) {
        if (required.includes(name)) throw new Error(`${name}, a dependency of ${dir}, is not installed: run npm ci`);
        continue;
      }
      if (found.has(pkg)) continue;
      found.add(pkg);
      visit(pkg);
    }
  };
  visit(from);
  return [...found];
}

function resolvePackage(from: string, name: string): string | undefined {
  for (let dir = from; isInside(dir, REPO_ROOT); dir = dirname(dir)) {
    const candidate = join(dir, 'node_modules', name);
    if (existsSync(join(candidate, 'package.json'))) return candidate;
  }
  return undefined;
}

function isInside(dir: string, root: string): boolean {
  return dir === root || dir.startsWith(root + sep);
}

/** A package without its own node_modules: the packages in there are copied if they are needed. */
function copyPackage(from: string, to: string): void {
  const nested = join(from, 'node_modules');
  cpSync(from, to, { recursive: true, dereference: true, filter: (source) => source !== nested });
}

/** Whether `user` can run `node` (the binary and every folder above it). */
function canRun(user: OtherUser, node: string): boolean {
  return spawnSync(node, ['-e', ''], { cwd: '/', uid: user.uid, gid: user.gid, stdio: 'ignore' }).status === 0;
}

function copyNode(root: string): string {
  const node = join(root, 'bin', 'node');
  mkdirSync(dirname(node), { recursive: true });
  copyFileSync(process.execPath, node);
  return node;
}

/** Readable by all, folders and executables walkable and runnable by all, whatever the umask was. */
function openToAll(path: string): void {
  const stat = lstatSync(path);
  if (stat.isSymbolicLink()) return;
  if (stat.isDirectory()) {
    chmodSync(path, 0o755);
    for (const entry of readdirSync(path)) openToAll(join(path, entry));
  } else {
    chmodSync(path, (stat.mode & 0o100) !== 0 ? 0o755 : 0o644);
  }
}

/** Fails with what to do when a folder above `path` shuts other users out (a private TMPDIR). */
function requireWalkable(path: string): void {
  for (let dir = dirname(path); ; dir = dirname(dir)) {
    if ((statSync(dir).mode & 0o001) === 0) {
      throw new Error(
        `other users cannot walk ${dir} (mode ${(statSync(dir).mode & 0o777).toString(8)}), the way to the temp folder ${path}: point TMPDIR at a folder everyone can walk, such as /tmp`,
      );
    }
    if (dirname(dir) === dir) return;
  }
}
