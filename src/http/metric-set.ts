import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { RunFigures } from './metric-record.js';
import type { QueueFigures } from './metric-view.js';
import { TASK_STATES } from '../task/states.js';
import type { TaskStateName } from '../task/states.js';

/** Kinds of the `wiggum_tokens_total` counter, as the agent CLIs report them. */
const TOKEN_KINDS = ['input', 'output', 'cache_read', 'cache_write'] as const;

/** From a prompt picked up at once to one waiting behind a full queue for an hour. */
const PICKUP_BUCKETS = [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 900, 3600];
/** From a few file writes to a verify check that runs a test suite. */
const OVERHEAD_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300];

/**
 * Every metric of the daemon, in a registry of its own (never prom-client's global one: two
 * daemons in one process, as in the tests, each have theirs). docs/metrics.md lists them; its test
 * checks that the list and this registry agree.
 */
export class MetricSet {
  readonly registry = new Registry();
  private readonly tasks = this.gauge('wiggum_tasks', TASKS_HELP, ['state']);
  private readonly queueDepth = this.gauge(
    'wiggum_queue_depth',
    'Tasks in Approved/ queued to start: not yet running, waiting, held or stopped.',
  );
  private readonly oldestQueued = this.gauge(
    'wiggum_queue_oldest_age_seconds',
    'How long the longest-queued task has been queued to start, in seconds (0 when none is).',
  );
  private readonly uptime = this.gauge('wiggum_daemon_uptime_seconds', 'Seconds since this daemon started.');
  private readonly startTime = this.gauge(
    'wiggum_daemon_start_time_seconds',
    'When this daemon started, in seconds since the Unix epoch.',
  );
  private readonly starts = this.counter(
    'wiggum_daemon_starts_total',
    'Daemon starts on this vault with metrics on, this one included (kept in .wiggum/daemon-starts): restarts are its increase.',
  );
  private readonly runs = this.counter(
    'wiggum_harness_runs_total',
    "Agent runs that ended, by harness and outcome (one per line of the tasks' history.jsonl), since this daemon started.",
    ['harness', 'outcome'],
  );
  private readonly iterations = this.counter(
    'wiggum_iterations_total',
    "Agent runs that used up one of their task's iterations (outcome complete, refused, continue or nonzero-exit), by harness and outcome, since this daemon started.",
    ['harness', 'outcome'],
  );
  private readonly retries = this.counter(
    'wiggum_retries_total',
    'Agent runs that failed transiently and are run again after a backoff, by harness, since this daemon started.',
    ['harness'],
  );
  private readonly usageLimitWaits = this.counter(
    'wiggum_usage_limit_waits_total',
    "Times a task began waiting for its harness's usage limit to reset, by harness, since this daemon started.",
    ['harness'],
  );
  private readonly outageWaits = this.counter(
    'wiggum_outage_waits_total',
    'Times a task began waiting for its harness to answer again (network, overload), by harness, since this daemon started.',
    ['harness'],
  );
  private readonly refusals = this.counter(
    'wiggum_completion_refusals_total',
    'Completion claims refused (a story not passing, the verify check failing), by harness, since this daemon started.',
    ['harness'],
  );
  private readonly tokens = this.counter(
    'wiggum_tokens_total',
    'Tokens the agent CLIs reported (input includes cached input), by harness and kind, since this daemon started.',
    ['harness', 'kind'],
  );
  private readonly cost = this.counter(
    'wiggum_cost_usd_total',
    'Cost in US dollars the agent CLIs reported, by harness, since this daemon started.',
    ['harness'],
  );
  private readonly cpu = this.counter(
    'wiggum_agent_cpu_seconds_total',
    "CPU time of the agents' whole process trees, in seconds, by harness, since this daemon started.",
    ['harness'],
  );
  private readonly pickup = new Histogram({
    name: 'wiggum_task_pickup_seconds',
    help: "Seconds from the daemon queueing a task it found in Approved/ to the start of the task's loop.",
    buckets: PICKUP_BUCKETS,
    registers: [this.registry],
  });
  private readonly overhead = new Histogram({
    name: 'wiggum_loop_overhead_seconds',
    help: "The loop's own time per agent run, in seconds: from the iteration's start to its history line, less the agent process's run time (prompt, memory files, git, a claim's verify check, the record). Runs on this host only.",
    buckets: OVERHEAD_BUCKETS,
    registers: [this.registry],
  });
  private readonly harnesses = new Set<string>();

  /** The counters start at the daemon's start; the count of starts is the one that persists. */
  constructor(daemonStarts: number) {
    this.starts.inc(daemonStarts);
  }

  /**
   * A harness seen for the first time: its counters are shown at 0 from now on, so that a rate
   * over them starts here rather than at their first increase.
   */
  harness(harness: string): void {
    if (this.harnesses.has(harness)) return;
    this.harnesses.add(harness);
    for (const counter of [this.retries, this.usageLimitWaits, this.outageWaits, this.refusals])
      counter.inc({ harness }, 0);
  }

  run(figures: RunFigures): void {
    const { harness, outcome } = figures;
    this.harness(harness);
    this.runs.inc({ harness, outcome });
    if (figures.countsAsIteration) this.iterations.inc({ harness, outcome });
    if (figures.retried) this.retries.inc({ harness });
    if (figures.refusedClaim) this.refusals.inc({ harness });
    if (figures.tokens !== null) {
      const { input, output, cacheRead, cacheWrite } = figures.tokens;
      const counts: Record<(typeof TOKEN_KINDS)[number], number> = {
        input,
        output,
        cache_read: cacheRead,
        cache_write: cacheWrite,
      };
      for (const kind of TOKEN_KINDS) this.tokens.inc({ harness, kind }, counts[kind]);
    }
    if (figures.costUsd !== null) this.cost.inc({ harness }, figures.costUsd);
    if (figures.cpuSeconds !== null) this.cpu.inc({ harness }, figures.cpuSeconds);
  }

  waited(why: 'usage-limit' | 'outage', harness: string): void {
    this.harness(harness);
    (why === 'usage-limit' ? this.usageLimitWaits : this.outageWaits).inc({ harness });
  }

  pickedUp(seconds: number): void {
    this.pickup.observe(seconds);
  }

  looped(seconds: number): void {
    this.overhead.observe(seconds);
  }

  /** The gauges read at scrape time. */
  scraped(tasks: Record<TaskStateName, number>, queue: QueueFigures, startedAtMs: number, uptimeSeconds: number): void {
    for (const state of TASK_STATES) this.tasks.set({ state }, tasks[state]);
    this.queueDepth.set(queue.depth);
    this.oldestQueued.set(queue.oldestAgeSeconds);
    this.startTime.set(startedAtMs / 1000);
    this.uptime.set(uptimeSeconds);
  }

  private gauge<L extends string>(name: string, help: string, labelNames: L[] = []): Gauge<L> {
    return new Gauge({ name, help, labelNames, registers: [this.registry] });
  }

  private counter<L extends string>(name: string, help: string, labelNames: L[] = []): Counter<L> {
    return new Counter({ name, help, labelNames, registers: [this.registry] });
  }
}

const TASKS_HELP = `Task files by state, read at scrape time; the states are the ones every view says (wiggum status --json's state), and they partition the task files: ${TASK_STATES.join(', ')}.`;
