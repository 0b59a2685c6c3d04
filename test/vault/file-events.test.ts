import { appendFileSync, linkSync, mkdirSync, renameSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, onTestFinished, test } from 'vitest';
import { createFileEventSource, resolveWatchedPaths } from '../../src/vault/file-events.js';
import { tempDir } from '../helpers/temp-dir.js';
import { EventLog } from './watch-harness.js';

/** Tasks already in Approved/ when the watch starts: chokidar watches them, and lists them again on every event. */
const ALREADY_THERE = 50;

interface Watched {
  root: string;
  approved: string;
  done: string;
  /** One item per change or error the source reported since it was ready. */
  seen: EventLog<{ kind: 'change' } | { kind: 'error'; code: string | undefined; path: string | undefined }>;
  changes(): number;
}

/** A vault with `ALREADY_THERE` tasks in Approved/, and a file event source on it that is ready. */
async function watched(): Promise<Watched> {
  const root = tempDir();
  const approved = join(root, 'Approved');
  const done = join(root, 'Done');
  mkdirSync(approved);
  mkdirSync(done);
  for (let i = 0; i < ALREADY_THERE; i += 1) writeFileSync(join(approved, `old-${i}.md`), `# old ${i}\n`);
  const source = createFileEventSource(await resolveWatchedPaths(approved, root));
  const seen: Watched['seen'] = new EventLog();
  await new Promise<void>((resolve) => source.onReady(resolve));
  source.onChange(() => seen.push({ kind: 'change' }));
  source.onError((error) => {
    const { code, path } = error as NodeJS.ErrnoException;
    seen.push({ kind: 'error', code, path });
  });
  onTestFinished(() => source.close());
  return { root, approved, done, seen, changes: () => seen.items.filter((item) => item.kind === 'change').length };
}

const aChange = (w: Watched, what: string): Promise<void> => w.seen.until(() => w.changes() > 0, what);

describe('the file event source of Approved/ (real chokidar, a folder that already holds tasks)', () => {
  // Each way a task file arrives, with the folder's other entries already watched (chokidar lists
  // the folder again on each event, and passes the entries it knows without looking at them).
  const arrivals: { way: string; arrive: (w: Watched) => void }[] = [
    { way: 'created', arrive: (w) => writeFileSync(join(w.approved, 'new.md'), '# new\n') },
    {
      way: 'renamed in from outside Approved/ (mv)',
      arrive: (w) => {
        writeFileSync(join(w.root, 'draft.md'), '# draft\n');
        renameSync(join(w.root, 'draft.md'), join(w.approved, 'new.md'));
      },
    },
    {
      way: "written by an editor's atomic save (temp file, then renamed over)",
      arrive: (w) => {
        writeFileSync(join(w.approved, '.old-1.md.swp'), '# old 1, edited\n');
        renameSync(join(w.approved, '.old-1.md.swp'), join(w.approved, 'old-1.md'));
      },
    },
    {
      way: 'moved back from Done/',
      arrive: (w) => {
        writeFileSync(join(w.done, 'back.md'), '# back\n');
        renameSync(join(w.done, 'back.md'), join(w.approved, 'back.md'));
      },
    },
    {
      way: 'a hard link',
      arrive: (w) => {
        writeFileSync(join(w.done, 'linked.md'), '# linked\n');
        linkSync(join(w.done, 'linked.md'), join(w.approved, 'linked.md'));
      },
    },
    {
      way: 'a symbolic link to a note',
      arrive: (w) => {
        writeFileSync(join(w.done, 'note.md'), '# note\n');
        symlinkSync(join(w.done, 'note.md'), join(w.approved, 'link.md'));
      },
    },
    { way: 'a stop flag', arrive: (w) => writeFileSync(join(w.approved, 'old-2.stop'), '') },
    { way: 'a task deleted', arrive: (w) => unlinkSync(join(w.approved, 'old-3.md')) },
    { way: 'a task written in place', arrive: (w) => appendFileSync(join(w.approved, 'old-4.md'), 'more\n') },
    { way: 'the vault STOP file', arrive: (w) => writeFileSync(join(w.root, 'STOP'), '') },
  ];
  test.each(arrivals)('$way: a change is reported', async ({ arrive }) => {
    const w = await watched();
    arrive(w);
    await aChange(w, 'a change');
  });

  test('a file that arrived after the start is watched from then on: writing it in place is reported', async () => {
    const w = await watched();
    writeFileSync(join(w.approved, 'new.md'), '');
    await aChange(w, 'the new file');
    const before = w.changes();
    appendFileSync(join(w.approved, 'new.md'), '# new\n');
    await w.seen.until(() => w.changes() > before, 'the write in place');
  });

  // A file the daemon may not read is tested through the real daemon run as another user, since
  // root reads every file: test/reliability/permissions.test.ts.
});
