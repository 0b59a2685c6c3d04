import type { MarkedProcess, ProcessTable, RunPids } from './process-tree.js';

/** What a run's whole process tree used, as far as samples of it could tell. */
export interface ResourceUsage {
  /** CPU time of every process of the run together (user + system). */
  cpuMs: number;
  /** The most memory the run held at once, as resident set sizes tell it. */
  peakRssBytes: number;
}

/** Everything remembered of one process (one pid and start time) from the samples that saw it. */
interface Sighting {
  ownCpuMs: number;
  reapedCpuMs: number;
  /** Its parent at the last sample that saw it, when that parent carried the marker too. */
  parent: string | null;
  /** The number of the last sample that saw it. */
  lastSample: number;
}

/**
 * Adds up the samples of a run's marked processes (`ProcessTable.findMarked`, taken every few
 * hundred ms) into CPU time and peak memory.
 *
 * CPU: each process counts with the most it was seen to have used, so one that has exited still
 * counts. A process that lived and died between two samples was never seen; its time is not lost
 * when its parent waited for it, because the kernel then adds it to the parent's cutime/cstime
 * (its "reaped children" time, which includes the grandchildren that child waited for). That same
 * reaped time also holds the children that *were* seen, so it is never added on top of them:
 * for each parent the reaped time and the sum of its seen, reaped children are two lower bounds of
 * one quantity, and the larger one counts.
 *
 * What is approximate:
 * - the time a process used after the last sample that saw it, when no marked process waits for
 *   it: the leader (wiggum reaps it, so its last moments and the children it reaped in them are
 *   lost), and processes reparented to init after their parent exited. With samples every few
 *   hundred ms this is at most one interval of CPU per such process (times its threads); a process
 *   that ran entirely between two samples and was reaped by init is missed altogether;
 * - a parent and its child that both end between two samples count with their last samples, unless
 *   a marked grandparent waited for the parent: then its reaped time holds both in full;
 * - a process that starts itself again with an environment that lacks the marker (`env -i`) is
 *   lost from then on (and is not killed as a stray either);
 * - one look reads the processes one after the other over a few ms, not at one instant.
 *
 * Memory: the largest sum of resident sets over one sample, or the largest peak (VmHWM) of a single
 * process if that is more. A peak between two samples is seen only through VmHWM, so the true peak
 * of the tree may be higher; and pages shared between processes (libraries, copy-on-write after
 * fork) count once per process, so the sum may also be higher than the memory really in use.
 */
export class TreeUsage {
  private readonly seen = new Map<string, Sighting>();
  private samples = 0;
  private peakTotalRssBytes = 0;
  private peakSingleRssBytes = 0;

  /** One look at the run's marked processes. */
  add(processes: readonly MarkedProcess[]): void {
    this.samples += 1;
    const keyOfPid = new Map(processes.map((marked) => [marked.pid, identity(marked)]));
    let totalRssBytes = 0;
    for (const marked of processes) {
      const key = identity(marked);
      const before = this.seen.get(key);
      this.seen.set(key, {
        ownCpuMs: Math.max(before?.ownCpuMs ?? 0, marked.cpuMs),
        reapedCpuMs: Math.max(before?.reapedCpuMs ?? 0, marked.reapedChildrenCpuMs),
        parent: keyOfPid.get(marked.ppid) ?? null,
        lastSample: this.samples,
      });
      totalRssBytes += marked.rssBytes;
      this.peakSingleRssBytes = Math.max(this.peakSingleRssBytes, marked.peakRssBytes, marked.rssBytes);
    }
    this.peakTotalRssBytes = Math.max(this.peakTotalRssBytes, totalRssBytes);
  }

  usage(): ResourceUsage {
    const children = new Map<string, string[]>();
    const roots: string[] = [];
    for (const [key, sighting] of this.seen) {
      const parent = sighting.parent;
      if (parent === null || !this.seen.has(parent)) roots.push(key);
      else children.set(parent, [...(children.get(parent) ?? []), key]);
    }
    const subtreeCpuMs = (key: string): number => {
      const sighting = this.seen.get(key);
      if (sighting === undefined) return 0;
      let reapedSeenMs = 0;
      let stillAliveMs = 0;
      for (const child of children.get(key) ?? []) {
        const childMs = subtreeCpuMs(child);
        // Gone before the parent's last sample: the parent has waited for it (or is about to, if it
        // is a zombie), so its time is part of the parent's reaped time. Otherwise it is not.
        if ((this.seen.get(child)?.lastSample ?? 0) < sighting.lastSample) reapedSeenMs += childMs;
        else stillAliveMs += childMs;
      }
      return sighting.ownCpuMs + Math.max(sighting.reapedCpuMs, reapedSeenMs) + stillAliveMs;
    };
    return {
      cpuMs: Math.round(roots.reduce((sum, root) => sum + subtreeCpuMs(root), 0)),
      peakRssBytes: Math.max(this.peakTotalRssBytes, this.peakSingleRssBytes),
    };
  }
}

/** The samples of one run: `sample()` looks at the table now, `usage()` adds up what was seen. */
export interface RunMeter {
  /** What the look found (null: no table), for a caller that needs the run's processes as well. */
  sample(): MarkedProcess[] | null;
  /** null when the table could never be read (not Linux): the run's use is unknown, not zero. */
  usage(): ResourceUsage | null;
}

export function meterRun(marker: string, table: ProcessTable, run: RunPids | null = null): RunMeter {
  const tally = new TreeUsage();
  // One failed look (no /proc, or out of file descriptors for a moment) loses that sample only.
  let measured = false;
  return {
    sample: () => {
      const found = table.findMarked(marker, run);
      if (found !== null) {
        measured = true;
        tally.add(found);
      }
      return found;
    },
    usage: () => (measured ? tally.usage() : null),
  };
}

/** Pids are reused; a pid together with its start time is not. */
function identity(marked: MarkedProcess): string {
  return `${marked.pid}@${marked.startTicks}`;
}
