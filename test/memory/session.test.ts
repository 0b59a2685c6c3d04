import {
  chmodSync,
  existsSync,
  mkdirSync,
  readFileSync,
  readdirSync,
  readlinkSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { isWiggumError } from '../../src/errors.js';
import type { WiggumError } from '../../src/errors.js';
import { archiveSession } from '../../src/memory/archive.js';
import type { IterationRecord } from '../../src/memory/history.js';
import { sessionPaths } from '../../src/memory/paths.js';
import type { Prd } from '../../src/memory/prd.js';
import { progressHeader } from '../../src/memory/progress.js';
import { findRunLink } from '../../src/memory/run-link.js';
import { openSession } from '../../src/memory/session.js';
import type { OpenSessionOptions } from '../../src/memory/session.js';
import type { Clock } from '../../src/time/clock.js';
import { tempDir } from '../helpers/temp-dir.js';

const NOW = Date.parse('2026-01-27T10:05:00Z');
const clock: Clock = { now: () => NOW, sleep: () => Promise.resolve() };

const initialPrd: Prd = {
  projectName: 'Login',
  branchName: 'wiggum/login',
  userStories: [
    { id: 'US-001', title: 'Form', priority: 1, passes: false },
    { id: 'US-002', title: 'Tokens', priority: 2, passes: false },
  ],
};

function options(vault: string, overrides: Partial<OpenSessionOptions> = {}): OpenSessionOptions {
  return {
    sessionsRoot: join(vault, '.wiggum', 'sessions'),
    archiveRoot: join(vault, '.wiggum', 'archive'),
    taskId: 'login',
    taskFile: join(vault, 'Approved', 'login.md'),
    sessionId: undefined,
    newSessionId: 'session-1',
    branchName: 'wiggum/login',
    initialPrd: () => initialPrd,
    backend: 'disk',
    clock,
    ...overrides,
  };
}

function record(iteration: number): IterationRecord {
  return {
    iteration,
    attempt: 0,
    startedAt: '2026-01-27T10:05:00Z',
    endedAt: '2026-01-27T10:06:00Z',
    durationMs: 60_000,
    harness: 'claude',
    exitCode: 0,
    signal: null,
    outcome: 'continue',
    completionFound: false,
    storiesPassing: 1,
    storiesTotal: 2,
    git: { headBefore: 'aaa', headAfter: 'bbb', commits: ['bbb'], filesChanged: 1, files: ['src/a.ts'] },
    action: 'next-iteration',
    nextState: 'running',
  };
}

async function rejection(
  promise: Promise<unknown>,
  code: 'E_MEMORY_CORRUPT' | 'E_USAGE' | 'E_INTERNAL',
): Promise<WiggumError> {
  try {
    await promise;
  } catch (error) {
    if (isWiggumError(error, code)) return error;
    throw error;
  }
  throw new Error(`expected ${code}`);
}

describe('a new session', () => {
  test('creates every artifact with the right structure', async () => {
    const vault = tempDir();
    const opened = await openSession(options(vault));
    expect(opened).toMatchObject({ created: true, archivedTo: null, warning: null, sessionId: 'session-1' });
    expect(opened.store.durable).toBe(true);

    const paths = sessionPaths(join(vault, '.wiggum', 'sessions'), 'login');
    expect(opened.store.paths).toEqual(paths);
    expect(JSON.parse(readFileSync(paths.sessionFile, 'utf8'))).toEqual({
      sessionId: 'session-1',
      taskId: 'login',
      taskFile: join(vault, 'Approved', 'login.md'),
      branchName: 'wiggum/login',
      createdAt: '2026-01-27T10:05:00Z',
    });
    expect(JSON.parse(readFileSync(paths.prd, 'utf8'))).toEqual(initialPrd);
    expect(readFileSync(paths.progress, 'utf8')).toBe(progressHeader(NOW));
    expect(readFileSync(paths.context, 'utf8')).toBe('');
    expect(readFileSync(paths.history, 'utf8')).toBe('');
    expect(statSync(paths.logs).isDirectory()).toBe(true);
    expect(opened.store.logFile(7, 0)).toBe(join(paths.logs, '0007.log'));
    expect(opened.store.logFile(7, 2)).toBe(join(paths.logs, '0007.retry2.log'));
    // No staging folder is left behind.
    expect(readdirSync(join(vault, '.wiggum', 'sessions'))).toEqual(['login']);
  });

  test('history lines are appended and read back; an invalid record is refused before it is written', async () => {
    const vault = tempDir();
    const { store } = await openSession(options(vault));
    await store.appendHistory(record(1));
    await store.appendHistory({
      ...record(2),
      usage: { inputTokens: 10, outputTokens: 5, cacheReadTokens: 0, cacheWriteTokens: 0 },
      error: { code: 'E_HARNESS_EXIT', message: 'exit 1' },
    });
    const history = await store.loadHistory();
    expect(history.map((r) => r.iteration)).toEqual([1, 2]);
    expect(history[1]?.usage).toEqual({ inputTokens: 10, outputTokens: 5, cacheReadTokens: 0, cacheWriteTokens: 0 });
    expect(readFileSync(store.paths!.history, 'utf8').split('\n')).toHaveLength(3);

    await rejection(store.appendHistory({ ...record(3), iteration: -1 }), 'E_INTERNAL');
    expect(await store.loadHistory()).toHaveLength(2);
  });

  test('prd.json is read from disk every time: the same bytes give the same Prd, an agent’s edit is seen, a corrupt file refused', async () => {
    const vault = tempDir();
    const { store } = await openSession(options(vault));
    const first = await store.loadPrd();
    expect(await store.loadPrd()).toBe(first);
    const edited: Prd = { ...first, userStories: first.userStories.map((story) => ({ ...story, passes: true })) };
    writeFileSync(store.paths!.prd, JSON.stringify(edited));
    expect(await store.loadPrd()).toEqual(edited);
    writeFileSync(store.paths!.prd, '{"userStories": [');
    await rejection(store.loadPrd(), 'E_MEMORY_CORRUPT');
  });
});

describe('resume', () => {
  test('keeps everything and sees edits made by another process between loads', async () => {
    const vault = tempDir();
    const first = await openSession(options(vault));
    await first.store.appendProgress('## iteration 1\n---\n');
    await first.store.appendHistory(record(1));
    const paths = first.store.paths!;
    const before = {
      prd: readFileSync(paths.prd, 'utf8'),
      progress: readFileSync(paths.progress, 'utf8'),
      meta: readFileSync(paths.sessionFile, 'utf8'),
    };

    let initialCalls = 0;
    const resumed = await openSession(
      options(vault, {
        sessionId: 'session-1',
        newSessionId: 'session-2',
        initialPrd: () => ((initialCalls += 1), initialPrd),
      }),
    );
    expect(resumed).toMatchObject({ created: false, archivedTo: null, warning: null, sessionId: 'session-1' });
    expect(initialCalls).toBe(0);
    expect(readFileSync(paths.prd, 'utf8')).toBe(before.prd);
    expect(readFileSync(paths.progress, 'utf8')).toBe(before.progress);
    expect(readFileSync(paths.sessionFile, 'utf8')).toBe(before.meta);
    expect(await resumed.store.loadHistory()).toHaveLength(1);

    // The agent marks a story and writes learnings while wiggum holds the store.
    const edited = structuredClone(initialPrd);
    edited.userStories[0]!.passes = true;
    edited['agentNote'] = 'kept';
    writeFileSync(paths.prd, JSON.stringify(edited));
    writeFileSync(paths.progress, `${before.progress}\n## by the agent\n---\n`);
    writeFileSync(paths.context, 'from another process\n');

    const prd = await resumed.store.loadPrd();
    expect(prd.userStories[0]?.passes).toBe(true);
    expect(prd['agentNote']).toBe('kept');
    expect(await resumed.store.loadProgress()).toContain('## by the agent');
    expect(await resumed.store.loadContext()).toBe('from another process\n');

    await resumed.store.appendProgress('## iteration 2\n---\n');
    const progress = readFileSync(paths.progress, 'utf8');
    expect(progress.indexOf('## by the agent')).toBeLessThan(progress.indexOf('## iteration 2'));
  });

  test('savePrd writes validated JSON that the next load reads', async () => {
    const vault = tempDir();
    const { store } = await openSession(options(vault));
    const prd = await store.loadPrd();
    prd.userStories[1]!.passes = true;
    await store.savePrd(prd);
    expect((await store.loadPrd()).userStories[1]?.passes).toBe(true);
    const bad = { userStories: [{ id: 'x' }] } as unknown as Prd;
    await rejection(store.savePrd(bad), 'E_MEMORY_CORRUPT');
    expect((await store.loadPrd()).userStories).toHaveLength(2);
  });
});

describe('archiving', () => {
  test("a session id that belongs to another session moves the old folder, intact, to the archive under its run's name", async () => {
    const vault = tempDir();
    const first = await openSession(options(vault));
    await first.store.appendHistory(record(1));
    await first.store.addContext('old context');
    const oldPaths = first.store.paths!;
    const oldFiles = Object.fromEntries(
      ['session.json', 'prd.json', 'progress.txt', 'context.md', 'history.jsonl'].map((f) => [
        f,
        readFileSync(join(oldPaths.dir, f), 'utf8'),
      ]),
    );

    const second = await openSession(options(vault, { sessionId: 'someone-else', newSessionId: 'session-2' }));
    const archived = join(vault, '.wiggum', 'archive', '2026-01-27-login-session1');
    expect(second).toMatchObject({ created: true, archivedTo: archived, sessionId: 'session-2', warning: null });
    for (const [file, text] of Object.entries(oldFiles)) expect(readFileSync(join(archived, file), 'utf8')).toBe(text);
    expect(statSync(join(archived, 'logs')).isDirectory()).toBe(true);
    expect(JSON.parse(readFileSync(oldPaths.sessionFile, 'utf8'))).toMatchObject({ sessionId: 'session-2' });
    expect(await second.store.loadHistory()).toEqual([]);
    expect(await second.store.loadContext()).toBe('');
  });

  test('each run has a link of its own in runs/, leading to its memory before and after the id runs again', async () => {
    const vault = tempDir();
    const runs = join(vault, '.wiggum', 'runs');
    const first = await openSession(options(vault));
    expect(first.runDir).toBe(join(runs, '2026-01-27-login-session1'));
    expect(readlinkSync(first.runDir!)).toBe('../sessions/login');
    await first.store.addContext('FIRST run');

    const second = await openSession(options(vault, { newSessionId: 'session-2' }));
    expect(second.runDir).toBe(join(runs, '2026-01-27-login-session2'));
    await second.store.addContext('SECOND run');
    // The first run's link followed its folder into the archive; the second's leads to sessions/.
    expect(readlinkSync(first.runDir!)).toBe('../archive/2026-01-27-login-session1');
    expect(readFileSync(join(first.runDir!, 'context.md'), 'utf8')).toContain('FIRST run');
    expect(readFileSync(join(second.runDir!, 'context.md'), 'utf8')).toContain('SECOND run');
    expect(await findRunLink(join(vault, '.wiggum', 'sessions'), 'login', 'session-1')).toEqual({
      link: first.runDir,
      dir: join(vault, '.wiggum', 'archive', '2026-01-27-login-session1'),
    });
    expect(await findRunLink(join(vault, '.wiggum', 'sessions'), 'login', 'session-2')).toEqual({
      link: second.runDir,
      dir: join(vault, '.wiggum', 'sessions', 'login'),
    });
    // Resuming changes nothing; a session from before links were kept gets one.
    rmSync(second.runDir!);
    expect((await openSession(options(vault, { sessionId: 'session-2', newSessionId: 'unused' }))).runDir).toBe(
      second.runDir,
    );
    expect(readlinkSync(second.runDir!)).toBe('../sessions/login');
  });

  test('a fresh start (no session id) and a branch change archive too, each run under its own name', async () => {
    const vault = tempDir();
    await openSession(options(vault));
    const fresh = await openSession(options(vault, { newSessionId: 'session-2' }));
    const moved = await openSession(
      options(vault, { sessionId: 'session-2', newSessionId: 'session-3', branchName: 'wiggum/other' }),
    );
    const archive = join(vault, '.wiggum', 'archive');
    expect(fresh.archivedTo).toBe(join(archive, '2026-01-27-login-session1'));
    expect(moved.archivedTo).toBe(join(archive, '2026-01-27-login-session2'));
    expect(JSON.parse(readFileSync(join(archive, '2026-01-27-login-session1', 'session.json'), 'utf8'))).toMatchObject({
      sessionId: 'session-1',
    });
    expect(JSON.parse(readFileSync(join(archive, '2026-01-27-login-session2', 'session.json'), 'utf8'))).toMatchObject({
      sessionId: 'session-2',
    });

    // retry --fresh: archiveSession on its own, never overwriting what is there.
    const third = await archiveSession({
      sessionsRoot: join(vault, '.wiggum', 'sessions'),
      archiveRoot: archive,
      taskId: 'login',
      clock,
    });
    expect(third).toBe(join(archive, '2026-01-27-login-session3'));
    expect(JSON.parse(readFileSync(join(third!, 'session.json'), 'utf8'))).toMatchObject({
      sessionId: 'session-3',
      branchName: 'wiggum/other',
    });
    expect(readdirSync(archive).sort()).toEqual([
      '2026-01-27-login-session1',
      '2026-01-27-login-session2',
      '2026-01-27-login-session3',
    ]);
    expect(existsSync(join(vault, '.wiggum', 'sessions', 'login'))).toBe(false);
    expect(
      await archiveSession({
        sessionsRoot: join(vault, '.wiggum', 'sessions'),
        archiveRoot: archive,
        taskId: 'login',
        clock,
      }),
    ).toBeNull();
  });

  test('a folder whose session.json does not read is archived by date, with -2 and -3 on a clash', async () => {
    const vault = tempDir();
    const sessions = join(vault, '.wiggum', 'sessions');
    const archive = join(vault, '.wiggum', 'archive');
    const archived: (string | null)[] = [];
    for (let n = 1; n <= 3; n += 1) {
      mkdirSync(join(sessions, 'login'), { recursive: true });
      writeFileSync(join(sessions, 'login', 'notes.txt'), `run ${n}`);
      archived.push(await archiveSession({ sessionsRoot: sessions, archiveRoot: archive, taskId: 'login', clock }));
    }
    expect(archived).toEqual([
      join(archive, '2026-01-27-login'),
      join(archive, '2026-01-27-login-2'),
      join(archive, '2026-01-27-login-3'),
    ]);
    expect(readFileSync(join(archive, '2026-01-27-login-3', 'notes.txt'), 'utf8')).toBe('run 3');
  });
});

describe('corruption on resume', () => {
  async function corruptAndResume(
    file: 'prd.json' | 'session.json',
    text: string,
  ): Promise<{ error: WiggumError; path: string; vault: string }> {
    const vault = tempDir();
    const { store } = await openSession(options(vault));
    const path = join(store.paths!.dir, file);
    writeFileSync(path, text);
    const error = await rejection(
      openSession(options(vault, { sessionId: 'session-1', newSessionId: 'session-2' })),
      'E_MEMORY_CORRUPT',
    );
    expect(readFileSync(path, 'utf8')).toBe(text);
    expect(existsSync(join(vault, '.wiggum', 'archive'))).toBe(false);
    return { error, path, vault };
  }

  test('prd.json that is not JSON: the error names the file and the position, the file is untouched', async () => {
    const { error, path } = await corruptAndResume('prd.json', '{"userStories": [\n');
    expect(error.message).toContain(path);
    expect(error.message).toContain('not valid JSON at line 2');
  });

  test('prd.json of the wrong shape: the error names the file and the schema path', async () => {
    const { error, path } = await corruptAndResume(
      'prd.json',
      JSON.stringify({
        userStories: [
          { id: 'US-001', title: 't', priority: 1, passes: true },
          { id: 'US-002', title: 't', priority: 'high', passes: false },
        ],
      }),
    );
    expect(error.message).toContain(`${path}: userStories.1.priority:`);
    expect(error.message).toContain('expected number');
  });

  test('a broken session.json is reported, not archived', async () => {
    const { error, path } = await corruptAndResume('session.json', '{"sessionId": 5}');
    expect(error.message).toContain(path);
    expect(error.message).toContain('sessionId');
  });

  test('a prd.json emptied or deleted by the agent is reported when loaded, never replaced', async () => {
    const vault = tempDir();
    const { store } = await openSession(options(vault));
    const path = store.paths!.prd;
    writeFileSync(path, '');
    expect((await rejection(store.loadPrd(), 'E_MEMORY_CORRUPT')).message).toContain(
      `${path}: not valid JSON at line 1, column 1`,
    );
    rmSync(path);
    expect((await rejection(store.loadPrd(), 'E_MEMORY_CORRUPT')).message).toContain(`${path}: missing`);
    expect(existsSync(path)).toBe(false);
    await rejection(openSession(options(vault, { sessionId: 'session-1' })), 'E_MEMORY_CORRUPT');
  });

  test('a history line that is not JSON, or not a record, is reported with its line number', async () => {
    const vault = tempDir();
    const { store } = await openSession(options(vault));
    const path = store.paths!.history;
    await store.appendHistory(record(1));
    const good = readFileSync(path, 'utf8');
    writeFileSync(path, `${good}{"iteration": 2,\n`);
    let error = await rejection(openSession(options(vault, { sessionId: 'session-1' })), 'E_MEMORY_CORRUPT');
    expect(error.message).toContain(`${path}:2:`);

    writeFileSync(path, `${good}\n${JSON.stringify({ ...record(2), outcome: 5 })}\n`);
    error = await rejection(store.loadHistory(), 'E_MEMORY_CORRUPT');
    expect(error.message).toContain(`${path}:3:`);
    expect(error.message).toContain('outcome');
  });
});

describe('context', () => {
  test('addContext appends with a timestamp line, clearContext empties, both from any store on the folder', async () => {
    const vault = tempDir();
    const loop = await openSession(options(vault));
    // `wiggum add-context` in another process opens the same session.
    const cli = await openSession(options(vault, { sessionId: 'session-1' }));
    await cli.store.addContext('use pnpm, not npm');
    await cli.store.addContext('the API key is in .env.local');
    const context = await loop.store.loadContext();
    expect(context).toBe(
      '### Added 2026-01-27 10:05 UTC\n\nuse pnpm, not npm\n\n### Added 2026-01-27 10:05 UTC\n\nthe API key is in .env.local\n',
    );
    await rejection(cli.store.addContext('   '), 'E_USAGE');
    await cli.store.clearContext();
    expect(await loop.store.loadContext()).toBe('');
    expect(readFileSync(loop.store.paths!.context, 'utf8')).toBe('');
  });
});

describe('without durable storage', () => {
  /** A sessions root that cannot be written: read-only, or (as root, where modes do not bind) a plain file. */
  function unwritableSessionsRoot(vault: string): string {
    const root = join(vault, '.wiggum', 'sessions');
    mkdirSync(root, { recursive: true });
    chmodSync(root, 0o555);
    try {
      writeFileSync(join(root, 'probe'), '');
    } catch {
      return root;
    }
    chmodSync(root, 0o755);
    const file = join(vault, '.wiggum', 'sessions-file');
    writeFileSync(file, 'not a folder');
    return file;
  }

  test('an unwritable sessions root falls back to memory with a loud warning, and the store works', async () => {
    const vault = tempDir();
    const sessionsRoot = unwritableSessionsRoot(vault);
    const opened = await openSession(options(vault, { sessionsRoot }));
    expect(opened.store.durable).toBe(false);
    expect(opened.store.paths).toBeNull();
    expect(opened.store.logFile(1, 0)).toBeNull();
    expect(opened.warning).toMatch(/NOT DURABLE/);
    expect(opened.warning).toContain(sessionsRoot);
    expect(opened.warning).toMatch(/EACCES|EPERM|ENOTDIR|EEXIST|EROFS/);
    expect(opened.created).toBe(true);

    const { store } = opened;
    expect(await store.loadPrd()).toEqual(initialPrd);
    expect(await store.loadProgress()).toBe(progressHeader(NOW));
    const prd = await store.loadPrd();
    prd.userStories[0]!.passes = true;
    expect((await store.loadPrd()).userStories[0]?.passes).toBe(false); // a loaded copy is not the store
    await store.savePrd(prd);
    expect((await store.loadPrd()).userStories[0]?.passes).toBe(true);
    await store.appendProgress('## iteration 1\n---\n');
    expect(await store.loadProgress()).toContain('## iteration 1');
    await store.addContext('hint');
    expect(await store.loadContext()).toContain('hint');
    await store.clearContext();
    expect(await store.loadContext()).toBe('');
    await store.appendHistory(record(1));
    expect(await store.loadHistory()).toEqual([record(1)]);
    await rejection(store.appendHistory({ ...record(2), outcome: '' }), 'E_INTERNAL');
    await rejection(store.savePrd({ userStories: 'none' } as unknown as Prd), 'E_MEMORY_CORRUPT');
    if (statSync(sessionsRoot).isDirectory()) chmodSync(sessionsRoot, 0o755);
  });

  test('backend "memory" warns; a later run with the disk backend is durable again', async () => {
    const vault = tempDir();
    const inMemory = await openSession(options(vault, { backend: 'memory' }));
    expect(inMemory.store.durable).toBe(false);
    expect(inMemory.warning).toMatch(/NOT DURABLE.*backend is set to "memory"/);
    expect(existsSync(join(vault, '.wiggum'))).toBe(false);

    const onDisk = await openSession(options(vault, { newSessionId: 'session-2' }));
    expect(onDisk.warning).toBeNull();
    expect(onDisk.store.durable).toBe(true);
    await onDisk.store.appendHistory(record(1));
    const resumed = await openSession(options(vault, { sessionId: 'session-2' }));
    expect(resumed.created).toBe(false);
    expect(await resumed.store.loadHistory()).toEqual([record(1)]);
  });

  test('a session that can be read but not written resumes in memory from what is on disk', async () => {
    const vault = tempDir();
    const first = await openSession(options(vault));
    await first.store.appendHistory(record(1));
    const dir = first.store.paths!.dir;
    const restore = makeUnwritable(dir);
    try {
      const resumed = await openSession(options(vault, { sessionId: 'session-1' }));
      expect(resumed.created).toBe(false);
      expect(resumed.store.durable).toBe(false);
      expect(resumed.warning).toContain(dir);
      expect(await resumed.store.loadHistory()).toEqual([record(1)]);
    } finally {
      restore();
    }
  });
});

/**
 * Makes a session folder refuse writes: read-only permissions, or, where they do not stop the
 * current user (root), a file where its logs/ folder must be, so creating it fails just the same.
 * Returns how to undo it.
 */
function makeUnwritable(dir: string): () => void {
  chmodSync(dir, 0o555);
  try {
    writeFileSync(join(dir, '.probe'), '');
  } catch {
    return () => chmodSync(dir, 0o755);
  }
  rmSync(join(dir, '.probe'));
  chmodSync(dir, 0o755);
  rmSync(join(dir, 'logs'), { recursive: true });
  writeFileSync(join(dir, 'logs'), 'a file where the logs folder should be');
  return () => {
    rmSync(join(dir, 'logs'));
    mkdirSync(join(dir, 'logs'));
  };
}
