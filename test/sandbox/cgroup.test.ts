import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, rmdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, onTestFinished, test } from 'vitest';
import { clearableCgroups, findCgroupRoot, openRunCgroup } from '../../src/sandbox/cgroup.js';

const ROOT = await findCgroupRoot();

describe('which idle cgroups a run clears before making its own', () => {
  const owners = { opened: new Set(['100/t1-1.0']), pid: 100, alive: (pid: number) => pid === 200 };
  test.each<[string, { name: string; children: string[] }, string[]]>([
    [
      "this process's: those it released busy, never one it opened and has not released (empty until its wrapper joins), nor its folder",
      { name: '100', children: ['t1-1.0', 't1-2.0'] },
      ['100/t1-2.0'],
    ],
    ["another live process's: none (it may have just made one)", { name: '200', children: ['t2-1.0'] }, []],
    [
      "a gone process's (a killed daemon): its cgroups, then its folder",
      { name: '300', children: ['t3-1.0'] },
      ['300/t3-1.0', '300'],
    ],
    ["an earlier version's, of a live process: kept", { name: '200-t2-1.0', children: [] }, []],
    ["an earlier version's, of a gone process", { name: '300-t3-1.0', children: [] }, ['300-t3-1.0']],
    ['one named after no process', { name: 'leftover', children: [] }, ['leftover']],
  ])('%s', (_, folder, clearable) => expect(clearableCgroups([folder], owners)).toEqual(clearable));
});

/** The pid of a process that has exited. */
async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', '']);
  await new Promise((resolve) => child.once('exit', resolve));
  return child.pid ?? -1;
}

describe.runIf(ROOT !== null)('pids cgroups on this machine', () => {
  test("a run's fresh cgroup survives another run made meanwhile, and an earlier version's clearing; a gone process's go", async () => {
    if (ROOT === null) return;
    const sleeper = spawn('sleep', ['600'], { stdio: 'ignore' });
    onTestFinished(() => void sleeper.kill('SIGKILL'));
    const others = join(ROOT.dir, String(sleeper.pid), 'cgroup-test');
    mkdirSync(others, { recursive: true });
    onTestFinished(() => {
      rmdirSync(others);
      rmdirSync(join(ROOT.dir, String(sleeper.pid)));
    });
    const dead = await deadPid();
    const gone = join(ROOT.dir, String(dead), 'cgroup-test');
    const goneFlat = join(ROOT.dir, `${dead}-cgroup-test`);
    mkdirSync(gone, { recursive: true });
    mkdirSync(goneFlat);

    const first = await openRunCgroup(ROOT, 'cgroup-test-1', 10);
    if (first === null) throw new Error(`no cgroup could be made under ${ROOT.dir}`);
    onTestFinished(() => first.release());
    // An earlier version clears every idle cgroup right under wiggum/.
    for (const entry of readdirSync(ROOT.dir, { withFileTypes: true }))
      if (entry.isDirectory() && entry.name !== String(sleeper.pid)) {
        try {
          rmdirSync(join(ROOT.dir, entry.name));
        } catch {
          // busy, or holding cgroups: it stays
        }
      }
    const second = await openRunCgroup(ROOT, 'cgroup-test-2', 10);
    if (second === null) throw new Error(`no cgroup could be made under ${ROOT.dir}`);
    onTestFinished(() => second.release());

    // Not joined yet (idle), yet not cleared: its run's wrapper is about to join it.
    expect(first.procs).toBe(join(ROOT.dir, String(process.pid), 'cgroup-test-1', 'cgroup.procs'));
    expect(existsSync(first.procs)).toBe(true);
    expect(existsSync(others)).toBe(true);
    expect(existsSync(join(ROOT.dir, String(dead)))).toBe(false);
    expect(existsSync(goneFlat)).toBe(false);
    await first.release();
    expect(existsSync(first.procs)).toBe(false);
    expect(existsSync(second.procs)).toBe(true);
  });
});
