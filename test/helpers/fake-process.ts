import { EventEmitter } from 'node:events';
import { PassThrough } from 'node:stream';
import type { HostChild, ProcessHost } from '../../src/harness/process-host.js';
import type { MarkedProcess, ProcessTable } from '../../src/harness/process-tree.js';
import { ManualClock } from './manual-clock.js';

/** What a fake process does when its group gets SIGTERM. */
export type OnTerm = 'exit' | 'ignore';

/** A child process made of streams and events: the test decides when it prints and exits. */
export interface FakeProcess {
  child: HostChild;
  pid: number;
  /** Writes to its stdout. */
  print(text: string): void;
  /** Writes to its stderr. */
  printError(text: string): void;
  /**
   * The leader exits: 'exit' at once, its streams end, and 'close' once both have closed, as a
   * ChildProcess does. Its group is gone unless `keepGroup`.
   */
  exit(code: number | null, signal?: NodeJS.Signals | null, keepGroup?: boolean): void;
  exited: boolean;
  /** Members of its group other than the leader still run. */
  groupAlive: boolean;
  onTerm: OnTerm;
}

let nextPid = 40_000;

export function createFakeProcess(onTerm: OnTerm = 'exit'): FakeProcess {
  const emitter = new EventEmitter();
  const stdin = new PassThrough();
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  stdin.resume();
  const outputClosed = Promise.all(
    [stdout, stderr].map((stream) => new Promise((resolve) => stream.once('close', resolve))),
  );
  const pid = nextPid++;
  const fake: FakeProcess = {
    child: Object.assign(emitter, { pid, stdin, stdout, stderr }) as unknown as HostChild,
    pid,
    exited: false,
    groupAlive: true,
    onTerm,
    print: (text) => void stdout.write(text),
    printError: (text) => void stderr.write(text),
    exit: (code, signal = null, keepGroup = false) => {
      if (fake.exited) return;
      fake.exited = true;
      fake.groupAlive = keepGroup;
      stdout.end();
      stderr.end();
      emitter.emit('exit', code, signal);
      void outputClosed.then(() => emitter.emit('close', code, signal));
    },
  };
  return fake;
}

/**
 * A process table the test writes: `marked` is what every look finds (whatever the marker), and a
 * signal to one of them takes it off the list as the signal would (SIGTERM unless it ignores it).
 */
export interface FakeProcessTable extends ProcessTable {
  /** null: as if there were no /proc. Empty at first. */
  marked: MarkedProcess[] | null;
  /** Pids of marked processes that survive SIGTERM. */
  ignoringTerm: Set<number>;
  /** Every signal sent to one process, in order. */
  signalled: { pid: number; signal: NodeJS.Signals }[];
  /** How many times the table was looked at. */
  looks: number;
}

/** A fake ProcessHost, and what was done through it. */
export type FakeHost = ProcessHost & {
  clock: ManualClock;
  processTable: FakeProcessTable;
  /** Every signal sent to the fake's group, in order. */
  signals: NodeJS.Signals[];
  /** Every command started, in order. */
  spawns: { command: string; args: string[]; env: Record<string, string> }[];
};

export function fakeProcessTable(): FakeProcessTable {
  const table: FakeProcessTable = {
    marked: [],
    ignoringTerm: new Set(),
    signalled: [],
    looks: 0,
    findMarked: () => {
      table.looks += 1;
      return table.marked === null ? null : [...table.marked];
    },
    // No counters: every look reads the whole (fake) table.
    pidCounters: () => null,
    signal: (pid, signal) => {
      table.signalled.push({ pid, signal });
      if (signal === 'SIGTERM' && table.ignoringTerm.has(pid)) return;
      if (table.marked !== null) table.marked = table.marked.filter((marked) => marked.pid !== pid);
    },
  };
  return table;
}

/**
 * A ProcessHost whose spawn hands out `agent`, whose clock is manual, whose process table is the
 * test's (empty unless it says otherwise: nothing reads /proc), and which records every signal.
 */
export function fakeHost(agent: FakeProcess): FakeHost {
  const clock = new ManualClock();
  const signals: NodeJS.Signals[] = [];
  const spawns: { command: string; args: string[]; env: Record<string, string> }[] = [];
  return {
    clock,
    signals,
    spawns,
    processTable: fakeProcessTable(),
    monotonicNow: () => clock.now(),
    spawn: (command, args, options) => {
      spawns.push({ command, args, env: options.env });
      return agent.child;
    },
    isGroupAlive: (pgid) => pgid === agent.pid && (!agent.exited || agent.groupAlive),
    signalGroup: (pgid, signal) => {
      if (pgid !== agent.pid) return;
      signals.push(signal);
      if (signal === 'SIGKILL' || (signal === 'SIGTERM' && agent.onTerm === 'exit')) {
        agent.groupAlive = false;
        agent.exit(null, signal);
      }
    },
  };
}
