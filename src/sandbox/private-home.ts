import { copyFile, lstat, mkdir, readFile, realpath, rm, stat, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { HomeFile } from '../config/sandbox-settings.js';
import type { MovedHome } from './agent-homes.js';
import type { DerivedHomeFile } from './agent-settings.js';

// What goes into an agent's private home before a confined run: its logins copied, its settings derived.

/** A folder of wiggum's, made private (0700) when missing; its real path. */
export async function ownFolder(path: string): Promise<string> {
  await mkdir(path, { recursive: true, mode: 0o700 });
  return realpath(path);
}

/**
 * Copies each `copy` home file into the private home when the real one is newer (a token the agent
 * refreshed inside is kept until the person logs in again outside); returns the `ro` ones to show.
 */
export async function placeHomeFiles(
  home: string | null,
  privateHome: string,
  files: readonly HomeFile[],
): Promise<string[]> {
  if (home === null) return [];
  const shown: string[] = [];
  for (const file of files) {
    const source = join(home, file.path);
    const real = await stat(source).catch(() => null);
    if (real === null || !real.isFile()) continue;
    if (file.mode === 'ro') {
      shown.push(source);
      continue;
    }
    const target = join(privateHome, file.path);
    const copy = await lstat(target).catch(() => null);
    if (copy !== null && copy.mtimeMs >= real.mtimeMs) continue;
    await mkdir(dirname(target), { recursive: true, mode: 0o700 });
    await rm(target, { force: true });
    await copyFile(source, target);
  }
  return shown;
}

/**
 * The private folder of each moved agent folder that exists (`<private home>.<VARIABLE>`), its
 * logins copied and settings derived from the real one: what to show in its place.
 */
export async function placeMovedHomes(
  privateHome: string,
  moved: readonly MovedHome[],
): Promise<{ source: string; target: string }[]> {
  const replaced: { source: string; target: string }[] = [];
  for (const entry of moved) {
    const target = await realpath(entry.target).catch(() => null);
    if (target === null || !(await stat(target)).isDirectory()) continue;
    const source = await ownFolder(`${privateHome}.${entry.variable}`);
    await placeHomeFiles(target, source, entry.files);
    await placeDerivedFiles(target, source, entry.derived);
    replaced.push({ source, target });
  }
  return replaced;
}

/** A settings file larger than this is not an agent's settings: not read, nothing derived. */
const SETTINGS_READ_LIMIT = 1024 * 1024;

/** Writes each derived settings file into the private home when its text changed (none when the real one is absent). */
export async function placeDerivedFiles(
  home: string | null,
  privateHome: string,
  files: readonly DerivedHomeFile[],
): Promise<void> {
  if (home === null) return;
  for (const file of files) {
    const source = join(home, file.from);
    const real = await stat(source).catch(() => null);
    if (real === null || !real.isFile() || real.size > SETTINGS_READ_LIMIT) continue;
    const text = file.derive(await readFile(source, 'utf8'));
    if (text === null) continue;
    const target = join(privateHome, file.to);
    if ((await readFile(target, 'utf8').catch(() => null)) === text) continue;
    await mkdir(dirname(target), { recursive: true, mode: 0o700 });
    await rm(target, { force: true });
    await writeFile(target, text, { mode: 0o600 });
  }
}
