import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { chmod, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { systemErrorCode } from '../errors.js';
import { writeFileAtomic } from '../store/atomic-write.js';

/** `.wiggum/http-token`: the bearer token every request but /healthz must carry. */
export function tokenFile(stateDir: string): string {
  return join(stateDir, 'http-token');
}

/** 32 random bytes, URL-safe: fits a header, a query string and a URL fragment as it is. */
export function newToken(): string {
  return randomBytes(32).toString('base64url');
}

/** Writes a new token (owner-only: 0600), replacing any; returns it. `wiggum http-token --rotate`. */
export async function writeToken(stateDir: string): Promise<string> {
  const token = newToken();
  const file = tokenFile(stateDir);
  await writeFileAtomic(file, `${token}\n`, { ownerOnly: true });
  return token;
}

/** The token in the file, or null when there is none (an empty file counts as none). */
export async function readToken(stateDir: string): Promise<string | null> {
  try {
    const token = (await readFile(tokenFile(stateDir), 'utf8')).trim();
    return token === '' ? null : token;
  } catch (error) {
    if (systemErrorCode(error) === 'ENOENT') return null;
    throw error;
  }
}

/** The daemon's start: the token there is kept (a restart keeps it); none yet, one is made. */
export async function ensureToken(stateDir: string): Promise<string> {
  const existing = await readToken(stateDir);
  if (existing !== null) {
    const mode = (await stat(tokenFile(stateDir))).mode & 0o777;
    if ((mode & 0o077) !== 0) await chmod(tokenFile(stateDir), 0o600);
    return existing;
  }
  return writeToken(stateDir);
}

/** How long a read of the token file is trusted before its change time is looked at again. */
const RECHECK_MS = 1_000;

/**
 * Checks a presented token against the one in the file, which a rotation (`wiggum http-token
 * --rotate`) may replace while the daemon runs: the file's change time is looked at at most once a
 * second, and a new token takes over from then on. Compared in constant time.
 */
export class TokenGate {
  private digest: Buffer;
  /** The file's inode and change time when last read: a rotation replaces the inode (a rename). */
  private version = '';
  private checkedAtMs = 0;

  private constructor(
    private readonly stateDir: string,
    token: string,
    private readonly now: () => number,
  ) {
    this.digest = digestOf(token);
  }

  static async open(stateDir: string, now: () => number): Promise<TokenGate> {
    const gate = new TokenGate(stateDir, await ensureToken(stateDir), now);
    gate.version = versionOf(await stat(tokenFile(stateDir)));
    gate.checkedAtMs = now();
    return gate;
  }

  async admits(presented: string | null): Promise<boolean> {
    await this.refresh();
    if (presented === null || presented === '') return false;
    return timingSafeEqual(digestOf(presented), this.digest);
  }

  private async refresh(): Promise<void> {
    const now = this.now();
    if (now - this.checkedAtMs < RECHECK_MS) return;
    this.checkedAtMs = now;
    const version = await stat(tokenFile(this.stateDir)).then(versionOf, () => null);
    if ((version ?? 'none') === this.version) return;
    const token = version === null ? null : await readToken(this.stateDir).catch(() => null);
    // A file removed or emptied admits nobody until a token is there again: never an open door.
    this.digest = digestOf(token ?? newToken());
    this.version = version ?? 'none';
  }
}

function versionOf(stats: { ino: number; ctimeMs: number }): string {
  return `${stats.ino}:${stats.ctimeMs}`;
}

function digestOf(token: string): Buffer {
  return createHash('sha256').update(token).digest();
}

/** `Authorization: Bearer X` → X; anything else → null. */
export function bearerOf(header: string | undefined): string | null {
  if (header === undefined) return null;
  const match = /^Bearer +([^\s]+) *$/i.exec(header);
  return match === null ? null : match[1]!;
}
