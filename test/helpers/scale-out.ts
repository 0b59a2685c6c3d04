import { execFileSync, spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import {
  appendFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  readlinkSync,
  realpathSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { CLI, REPO_ROOT, requireBuild } from './child.js';
import { isRunning } from './process-state.js';
import { startRedis } from './redis.js';
import type { RedisServer } from './redis.js';
import { waitFor } from './wait.js';

/** The fake agent every harness of the cluster runs (a real executable script). */
export const QUEUE_AGENT = join(REPO_ROOT, 'test', 'fixtures', 'queue', 'agent.sh');

/** What the fake agent is told for one task (test/fixtures/queue/agent.sh says what each does). */
export interface AgentSettings {
  done_at?: number;
  sleep_s?: number;
  slow_at?: number;
  slow_s?: number;
  limit_at?: number;
  limit_s?: number;
  ask_at?: number;
}

/** One line of the agent's log. */
export interface AgentEvent {
  kind: 'start' | 'end' | 'limit';
  task: string;
  iteration: number;
  pid: number;
  atMs: number;
  /** For `limit`: when the limit resets (epoch ms). */
  resetMs: number | null;
}

/** One agent run as the agent recorded it: where it ran and under which processes. */
export interface AgentRun {
  task: string;
  iteration: number;
  pid: number;
  cwd: string;
  env: Record<string, string>;
  ancestors: number[];
}

/** A `wiggum start` or `wiggum worker` child: its output (JSON log lines) goes to `log`. */
export interface ClusterProcess {
  readonly name: string;
  readonly child: ChildProcess;
  readonly pid: number;
  readonly log: string;
  /** Resolves once it has exited (at once when it already has). */
  exited(): Promise<void>;
}

export interface ClusterOptions {
  workers: number;
  /** queue.max_stalled: stalls a run may have and still resume. */
  maxStalled: number;
  /** false: the host is a plain `wiggum start` that runs every task itself (no Redis, no workers). */
  queue?: boolean;
}

/**
 * A scale-out cluster on this machine, for tests: a real redis-server (AOF on), a vault whose host
 * is `wiggum start --queue`, N `wiggum worker` processes each in its own folder and HOME outside the
 * vault, a bare git remote per workdir with the host's clone as the task's workdir, and the fake
 * agent as three harnesses: `q` (command), `ha` (Claude Code's JSON, account `acct-a`) and `hb`
 * (command, account `acct-b`). Queue locks are short (2 s, stalled check every 1 s) so that a
 * killed worker's run resumes within seconds.
 */
export class Cluster {
  readonly root: string;
  readonly vault: string;
  readonly agentDir: string;
  readonly code: string;
  readonly remotes: string;
  readonly logs: string;
  readonly configFile: string;
  host: ClusterProcess | null = null;
  readonly workers: ClusterProcess[] = [];
  private readonly all: ClusterProcess[] = [];
  private sampler: NodeJS.Timeout | null = null;
  /** Files or working folders in the vault that a worker, or a process under it, had open. */
  readonly vaultTouches = new Set<string>();
  /** How many looks found a worker process to check (so that no finding means something). */
  samples = 0;
  private workerCount = 0;
  readonly queued: boolean;

  private constructor(
    readonly redis: RedisServer,
    options: ClusterOptions,
  ) {
    // realpath: the agent records `pwd -P`, and tmpdir() may be behind a symlink.
    this.root = realpathSync(mkdtempSync(join(tmpdir(), 'wiggum-scale-')));
    this.vault = join(this.root, 'vault');
    this.agentDir = join(this.root, 'agent');
    this.code = join(this.root, 'code');
    this.remotes = join(this.root, 'remotes');
    this.logs = join(this.root, 'logs');
    this.queued = options.queue !== false;
    for (const dir of [this.agentDir, join(this.agentDir, 'settings'), this.code, this.remotes, this.logs])
      mkdirSync(dir, { recursive: true });
    for (const folder of ['Approved', 'Done', 'Rejected', '.wiggum'])
      mkdirSync(join(this.vault, folder), { recursive: true });
    const agentEnv = { AGENT_DIR: this.agentDir };
    const config = {
      persistence_loop: { retry: { base_delay: '200ms', max_delay: '1s' } },
      vault: { allowed_workdirs: [this.code] },
      harness: { default: 'q', stop_grace: '500ms' },
      harnesses: {
        q: { kind: 'command', command: QUEUE_AGENT, env: agentEnv },
        ha: { kind: 'claude', command: QUEUE_AGENT, env: { ...agentEnv, AGENT_FORMAT: 'claude' }, account: 'acct-a' },
        hb: { kind: 'command', command: QUEUE_AGENT, env: agentEnv, account: 'acct-b' },
        hc: { kind: 'claude', command: QUEUE_AGENT, env: { ...agentEnv, AGENT_FORMAT: 'claude' }, account: 'acct-a' },
        // Confined: its pids and ancestors are its pid namespace's, so only whole-task checks use it.
        qs: { kind: 'command', command: QUEUE_AGENT, env: agentEnv, sandbox: { mode: 'bwrap' } },
      },
      queue: { lock_duration: '2s', stalled_interval: '1s', max_stalled: options.maxStalled },
      // The agent records its pid and its ancestors' for the test to find, kill and match it with a
      // worker: in a sandbox's pid namespace those are not the host's, so these harnesses run
      // unconfined, all but `qs`. The agents' folder is the test's channel to them: writable.
      sandbox: { mode: 'off', writable: [this.agentDir] },
      // Without a queue the host runs every task itself: as many at once as a cluster's workers would.
      ...(options.queue === false ? { daemon: { concurrency: Math.max(2, options.workers) } } : {}),
    };
    this.configFile = join(this.root, 'config.yaml');
    writeFileSync(this.configFile, stringify(config));
    writeFileSync(join(this.vault, '.wiggum', 'config.yaml'), stringify(config));
  }

  /** Starts Redis, the vault host and the workers; resolves once the host holds the vault. */
  static async start(options: ClusterOptions): Promise<Cluster> {
    requireBuild();
    const cluster = new Cluster(await startRedis(), options);
    cluster.startHost();
    await waitFor(() => existsSync(join(cluster.vault, '.wiggum', 'daemon.lock')), 'the vault host to lock the vault');
    for (let n = 0; n < (cluster.queued ? options.workers : 0); n += 1) cluster.startWorker();
    cluster.sampler = setInterval(() => cluster.sample(), 250);
    return cluster;
  }

  get url(): string {
    return this.redis.url;
  }

  /** `wiggum start --vault V --queue URL`. */
  startHost(): ClusterProcess {
    const index = this.all.filter((p) => p.name.startsWith('host')).length + 1;
    this.host = this.launch(
      `host${index}`,
      ['start', '--vault', this.vault, ...(this.queued ? ['--queue', this.url] : [])],
      this.root,
      process.env,
    );
    return this.host;
  }

  /**
   * `wiggum worker --queue URL --concurrency 1` in a folder of its own, with its own HOME and git
   * identity; given the name of a worker that is gone, a new process in that worker's folder (as a
   * supervisor restarts a service in its WorkingDirectory).
   */
  startWorker(again?: ClusterProcess): ClusterProcess {
    if (again === undefined) this.workerCount += 1;
    const name = again?.name ?? `w${this.workerCount}`;
    const dir = join(this.root, 'workers', name);
    mkdirSync(join(dir, 'home'), { recursive: true });
    mkdirSync(join(dir, '.wiggum'), { recursive: true });
    // The same queue settings as the host (the lock duration is the worker's): docs/scale-out.md.
    writeFileSync(join(dir, '.wiggum', 'config.yaml'), readFileSync(this.configFile));
    writeFileSync(join(dir, 'home', '.gitconfig'), `[user]\n\temail = ${name}@example.invalid\n\tname = ${name}\n`);
    const env = { ...process.env, HOME: join(dir, 'home') };
    const worker = this.launch(name, ['worker', '--queue', this.url, '--concurrency', '1'], dir, env);
    this.workers.push(worker);
    return worker;
  }

  private launch(name: string, args: string[], cwd: string, env: NodeJS.ProcessEnv): ClusterProcess {
    const log = join(this.logs, `${name}.${this.all.filter((p) => p.name === name).length + 1}.log`);
    const child = spawn(process.execPath, [CLI, ...args], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout?.on('data', (chunk: Buffer) => appendFileSync(log, chunk));
    child.stderr?.on('data', (chunk: Buffer) => appendFileSync(log, chunk));
    const gone = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    const proc: ClusterProcess = { name, child, pid: child.pid ?? -1, log, exited: () => gone };
    this.all.push(proc);
    return proc;
  }

  /** Workers that still run. */
  liveWorkers(): ClusterProcess[] {
    return this.workers.filter((w) => running(w.child));
  }

  /** kill -9, resolved once it is gone. */
  async kill9(proc: ClusterProcess): Promise<void> {
    if (running(proc.child)) proc.child.kill('SIGKILL');
    await proc.exited();
  }

  /** Makes a bare remote `remotes/NAME.git` with one commit on main, and the host's clone `code/NAME`. */
  repo(name: string): string {
    const clone = join(this.code, name);
    if (existsSync(clone)) return clone;
    const bare = join(this.remotes, `${name}.git`);
    execFileSync('git', ['init', '-q', '--bare', '-b', 'main', bare]);
    execFileSync('git', ['clone', '-q', bare, clone], { stdio: 'ignore' });
    const id = ['-c', 'user.email=test@example.invalid', '-c', 'user.name=test'];
    writeFileSync(join(clone, 'README.md'), `# ${name}\n`);
    execFileSync('git', ['checkout', '-q', '-b', 'main'], { cwd: clone, stdio: 'ignore' });
    execFileSync('git', ['add', 'README.md'], { cwd: clone });
    execFileSync('git', [...id, 'commit', '-qm', 'init'], { cwd: clone });
    execFileSync('git', ['push', '-q', 'origin', 'main'], { cwd: clone, stdio: 'ignore' });
    return clone;
  }

  /**
   * Drops `Approved/NAME.md` (written aside, then renamed in): harness `harness`, workdir
   * `code/WORKDIR`, and a user key and body that must come through byte for byte.
   */
  drop(
    name: string,
    options: { workdir?: string; harness?: string; agent?: AgentSettings; frontmatter?: string[] } = {},
  ): void {
    const settings = Object.entries(options.agent ?? {}).map(([key, value]) => `${key}=${String(value)}\n`);
    writeFileSync(join(this.agentDir, 'settings', name), settings.join(''));
    const workdir = this.repo(options.workdir ?? name);
    const tmp = join(this.vault, 'Approved', `.${name}.md.tmp`);
    writeFileSync(tmp, taskText(name, workdir, options.harness ?? 'q', options.frontmatter ?? []));
    renameSync(tmp, join(this.vault, 'Approved', `${name}.md`));
  }

  /** The folders of the vault a task file named NAME is in right now. */
  foldersOf(name: string): string[] {
    return ['Approved', 'Done', 'Rejected'].filter((folder) => existsSync(join(this.vault, folder, `${name}.md`)));
  }

  /**
   * Waits until each task is in Done/ and nowhere else: a move is a hard link then an unlink
   * (src/vault/move.ts), so for a moment the file has both names.
   */
  async waitForDone(names: string[], guardMs = 120_000): Promise<void> {
    await this.waitForOnlyIn('Done', names, guardMs);
  }

  /** Waits until each task is in `folder` and nowhere else (see waitForDone). */
  async waitForOnlyIn(folder: 'Done' | 'Rejected', names: string[], guardMs = 120_000): Promise<void> {
    await waitFor(
      () => names.every((name) => this.foldersOf(name).join() === folder),
      `${names.join(', ')} in ${folder}/ (${names.map((n) => `${n}: ${this.foldersOf(n).join('+') || 'nowhere'}`).join('; ')})`,
      guardMs,
    );
  }

  /** The agent's log lines. */
  events(): AgentEvent[] {
    const file = join(this.agentDir, 'log');
    if (!existsSync(file)) return [];
    return readFileSync(file, 'utf8')
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => {
        const [kind, task, iteration, pid, atMs, resetMs] = line.split(' ');
        return {
          kind: kind as AgentEvent['kind'],
          task: task ?? '',
          iteration: Number(iteration),
          pid: Number(pid),
          atMs: Number(atMs),
          resetMs: resetMs === undefined ? null : Number(resetMs),
        };
      });
  }

  starts(task: string, iteration?: number): AgentEvent[] {
    return this.events().filter(
      (e) => e.kind === 'start' && e.task === task && (iteration === undefined || e.iteration === iteration),
    );
  }

  /** Every agent run recorded, optionally of one task. */
  runs(task?: string): AgentRun[] {
    const dir = join(this.agentDir, 'runs');
    if (!existsSync(dir)) return [];
    return readdirSync(dir)
      .filter((file) => !file.endsWith('.tmp'))
      .map((file) => {
        const match = /^(.+)\.(\d+)\.(\d+)$/.exec(file);
        const text = readFileSync(join(dir, file), 'utf8');
        const env: Record<string, string> = {};
        let cwd = '';
        let ancestors: number[] = [];
        for (const line of text.split('\n')) {
          const eq = line.indexOf('=');
          if (eq < 0) continue;
          const key = line.slice(0, eq);
          const value = line.slice(eq + 1);
          if (key === 'cwd') cwd = value;
          else if (key === 'ancestors') ancestors = value.trim().split(/\s+/).filter(Boolean).map(Number);
          else env[key] = value;
        }
        return {
          task: match?.[1] ?? file,
          iteration: Number(match?.[2]),
          pid: Number(match?.[3]),
          cwd,
          env,
          ancestors,
        };
      })
      .filter((run) => task === undefined || run.task === task);
  }

  /** The worker a run ran under (a worker pid among its ancestors), or null. */
  workerOf(run: AgentRun): ClusterProcess | null {
    return this.workers.find((w) => run.ancestors.includes(w.pid)) ?? null;
  }

  /** Resolves with the newest run of TASK's ITERATION once one is recorded. */
  async waitForRun(task: string, iteration: number, guardMs = 60_000): Promise<AgentRun> {
    let found: AgentRun | undefined;
    await waitFor(
      () => (found = this.runs(task).find((run) => run.iteration === iteration)) !== undefined,
      `an agent run of ${task} iteration ${iteration}`,
      guardMs,
    );
    return found as AgentRun;
  }

  /**
   * The iterations TASK's history counts, sorted: lines whose outcome says the run was cut short
   * (stopped, interrupted, handed back, a usage limit, …) are not iterations the task used.
   */
  historyIterations(task: string): number[] {
    return this.history(task)
      .filter((line) => !CUT_SHORT.test(String(line['outcome'])))
      .map((line) => Number(line['iteration']))
      .sort((a, b) => a - b);
  }

  history(task: string): Record<string, unknown>[] {
    const file = join(this.vault, '.wiggum', 'sessions', task, 'history.jsonl');
    if (!existsSync(file)) return [];
    return readFileSync(file, 'utf8')
      .split('\n')
      .filter((line) => line.trim() !== '')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
  }

  /** The text of TASK's file in FOLDER. */
  taskFile(task: string, folder = 'Done'): string {
    return readFileSync(join(this.vault, folder, `${task}.md`), 'utf8');
  }

  /**
   * Where TASK stands once it should be whole: its folders, the iterations history counts, the
   * checkpoint's iteration and whether the user's bytes came through. Compared in one `expect`.
   */
  summary(task: string): { folders: string[]; history: number[]; checkpoint: number | null; userBytes: boolean } {
    const folders = this.foldersOf(task);
    const text = folders.length === 1 ? this.taskFile(task, folders[0]) : '';
    const checkpoint = /^\s+iteration:\s*(\d+)\s*$/m.exec(text)?.[1];
    return {
      folders,
      history: this.historyIterations(task),
      checkpoint: checkpoint === undefined ? null : Number(checkpoint),
      userBytes: text.includes(`title: ${task}\n`) && text.includes(USER_NOTE) && text.includes(bodyOf(task)),
    };
  }

  /** Commit subjects on TASK's branch of the remote, oldest first. */
  remoteSubjects(task: string, workdir = task): string[] {
    const bare = join(this.remotes, `${workdir}.git`);
    const out = execFileSync(
      'git',
      ['--git-dir', bare, 'log', '--reverse', '--format=%s', `refs/heads/ralph/${task}`],
      {
        encoding: 'utf8',
      },
    );
    return out.split('\n').filter((line) => line !== '');
  }

  /** Agent pids recorded that still run. */
  agentsLeft(): number[] {
    const file = join(this.agentDir, 'pids');
    if (!existsSync(file)) return [];
    const pids = [...new Set(readFileSync(file, 'utf8').split('\n').filter(Boolean).map(Number))];
    return pids.filter((pid) => isRunning(pid) && isOurAgent(pid, this.agentDir));
  }

  async waitForNoAgents(guardMs = 30_000): Promise<void> {
    await waitFor(
      () => this.agentsLeft().length === 0,
      `no agent left running (left: ${this.agentsLeft().join(' ')})`,
      guardMs,
    );
  }

  /** JSON log lines of a process whose `event` field is EVENT. */
  logEvents(proc: ClusterProcess, event: string): Record<string, unknown>[] {
    if (!existsSync(proc.log)) return [];
    return readFileSync(proc.log, 'utf8')
      .split('\n')
      .flatMap((line) => {
        try {
          const parsed = JSON.parse(line) as Record<string, unknown>;
          return parsed['event'] === event ? [parsed] : [];
        } catch {
          return [];
        }
      });
  }

  /** The JSON log lines of every process the cluster started whose `event` field is EVENT. */
  logEventsOfAll(event: string): Record<string, unknown>[] {
    return this.all.flatMap((proc) => this.logEvents(proc, event));
  }

  /** The last lines of every process's log that mention TASK (or all lines' tail), for a failure message. */
  logTail(task?: string, lines = 15): string {
    return this.all
      .map((proc) => {
        const text = existsSync(proc.log) ? readFileSync(proc.log, 'utf8') : '';
        const picked = text.split('\n').filter((line) => line !== '' && (task === undefined || line.includes(task)));
        return `--- ${proc.name} (pid ${proc.pid})\n${picked.slice(-lines).join('\n')}`;
      })
      .join('\n');
  }

  /**
   * Looks at the working folder and open files of every worker and of each process under it: none
   * may be in the vault (only the host writes it).
   */
  private sample(): void {
    const roots = new Set(this.liveWorkers().map((w) => w.pid));
    if (roots.size === 0) return;
    const tree = descendants(roots);
    this.samples += 1;
    for (const pid of tree) {
      const links = [`/proc/${pid}/cwd`];
      try {
        for (const fd of readdirSync(`/proc/${pid}/fd`)) links.push(`/proc/${pid}/fd/${fd}`);
      } catch {
        continue;
      }
      for (const link of links) {
        try {
          const target = readlinkSync(link);
          if (target === this.vault || target.startsWith(`${this.vault}/`))
            this.vaultTouches.add(`${link} -> ${target}`);
        } catch {
          // The process or descriptor went away meanwhile.
        }
      }
    }
  }

  /** Stops everything it started (kill -9: the test is over), then any agent left, and removes its folder. */
  async close(): Promise<void> {
    if (this.sampler !== null) clearInterval(this.sampler);
    await Promise.all(this.all.map((proc) => this.kill9(proc)));
    for (const pid of this.agentsLeft()) process.kill(pid, 'SIGKILL');
    await this.redis.stop(5_000);
    if (process.env['WIGGUM_KEEP_SCALE_OUT'] === undefined) rmSync(this.root, { recursive: true, force: true });
  }
}

/** Outcomes of history lines that are not a used iteration (see scaleout.sh's so_history). */
const CUT_SHORT = /stop|interrupt|transient|usage|stall|lost|fenc|hand|cancel|abandon|shutdown|requeue|wait/i;

export const USER_NOTE = 'note: "user text ☕ stays"';
const bodyOf = (name: string): string => `Scale-out test task ${name}.\n`;

function taskText(name: string, workdir: string, harness: string, extra: string[]): string {
  const more = extra.map((line) => `${line}\n`).join('');
  return `---\ntitle: ${name}\nharness: ${harness}\nworkdir: ${workdir}\nmax_iterations: 12\n${more}${USER_NOTE}\n---\n${bodyOf(name)}`;
}

function running(child: ChildProcess): boolean {
  return child.exitCode === null && child.signalCode === null;
}

/** Whether PID is the fake agent of this cluster (pids are reused: check its command and env). */
function isOurAgent(pid: number, agentDir: string): boolean {
  try {
    return (
      readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('agent.sh') &&
      readFileSync(`/proc/${pid}/environ`, 'utf8').includes(`AGENT_DIR=${agentDir}`)
    );
  } catch {
    return false;
  }
}

/** ROOTS and every process under them, from /proc. */
function descendants(roots: Set<number>): Set<number> {
  const parent = new Map<number, number>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      parent.set(Number(entry), ppid);
    } catch {
      // Gone meanwhile.
    }
  }
  const tree = new Set(roots);
  for (let grew = true; grew;) {
    grew = false;
    for (const [pid, ppid] of parent)
      if (!tree.has(pid) && tree.has(ppid)) {
        tree.add(pid);
        grew = true;
      }
  }
  return tree;
}
