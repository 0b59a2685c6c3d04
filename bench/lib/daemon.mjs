// `wiggum start` as a child process: its own process group (so it and anything it leaves behind
// can be killed as a whole), its log in a file, and its memory read from /proc.
import { spawn } from 'node:child_process';
import { closeSync, existsSync, openSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { releaseGroup, trackGroup } from './cleanup.mjs';
import { sleep } from './stats.mjs';

/** USER_HZ, the unit of /proc/PID/stat's times: 100 on every Linux this runs on (`getconf CLK_TCK`). */
const CLOCK_TICKS_PER_S = 100;

export const CLI = join(import.meta.dirname, '..', '..', 'dist', 'cli', 'main.js');

export class Daemon {
  constructor(child, logFile, name = 'the daemon') {
    this.child = child;
    this.name = name;
    this.pid = child.pid;
    this.logFile = logFile;
    this.exitCode = undefined;
    this.exited = new Promise((resolve) =>
      child.once('exit', (code, signal) => {
        this.exitCode = code ?? signal;
        resolve(this.exitCode);
      }),
    );
  }

  /**
   * `dist/cli/main.js start --vault V [args]` run as the executable it is (its shebang sets what an
   * installed `wiggum` runs with), logging to `<logDir>/daemon.log`. With Node flags (`--cpu-prof`,
   * which NODE_OPTIONS does not take) it runs `node FLAGS main.js` with the shebang's environment.
   */
  static start(vault, { args = [], nodeArgs = [], logDir, env = {} }) {
    return Daemon.spawnCli(['start', '--vault', vault, ...args], {
      nodeArgs,
      logFile: join(logDir, 'daemon.log'),
      env,
    });
  }

  /**
   * Any long-running `wiggum` command (`start`, `worker`) as above, in `cwd` (default: the bench's
   * own), its stdout and stderr appended to `logFile`, leading its own process group.
   */
  static spawnCli(cliArgs, { nodeArgs = [], logFile, env = {}, cwd = undefined, name = undefined }) {
    const fd = openSync(logFile, 'a');
    const childEnv = { ...process.env, ...env };
    delete childEnv.JOURNAL_STREAM;
    const [command, argv] = nodeArgs.length === 0 ? [CLI, []] : [process.execPath, [...nodeArgs, CLI]];
    if (nodeArgs.length > 0) childEnv.MALLOC_ARENA_MAX = '2';
    const child = spawn(command, [...argv, ...cliArgs], {
      stdio: ['ignore', fd, fd],
      detached: true,
      env: childEnv,
      ...(cwd === undefined ? {} : { cwd }),
    });
    closeSync(fd);
    trackGroup(child.pid);
    return new Daemon(child, logFile, name);
  }

  log() {
    return existsSync(this.logFile) ? readFileSync(this.logFile, 'utf8') : '';
  }

  /** Log lines as objects (the daemon's stdout is not a terminal: one JSON object a line). */
  lines() {
    return this.log()
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line));
  }

  async waitForLog(pattern, timeoutMs = 30_000) {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      if (this.exitCode !== undefined)
        throw new Error(
          `${this.name} exited (${this.exitCode}) before logging ${pattern}:\n${this.log().slice(-2000)}`,
        );
      if (pattern.test(this.log())) return;
      await sleep(20);
    }
    throw new Error(`${this.name} did not log ${pattern} within ${timeoutMs} ms:\n${this.log().slice(-2000)}`);
  }

  /** VmRSS and VmHWM (peak) of the daemon process, in MB. */
  memory() {
    const status = readFileSync(`/proc/${this.pid}/status`, 'utf8');
    const kb = (key) => Number(new RegExp(`^${key}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN);
    return { rssMb: kb('VmRSS') / 1024, hwmMb: kb('VmHWM') / 1024 };
  }

  /** CPU time the daemon process has used so far (user + system, from /proc/PID/stat), in ms. */
  cpuMs() {
    const stat = readFileSync(`/proc/${this.pid}/stat`, 'utf8');
    // The fields after the command name, which is in parentheses and may hold spaces; utime is field 14.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const ticks = Number(fields[11]) + Number(fields[12]);
    return (ticks * 1000) / CLOCK_TICKS_PER_S;
  }

  /** SIGTERM (drain), then SIGKILL to the whole group if it has not exited in `graceMs`. */
  async stop(graceMs = 15_000) {
    if (this.exitCode === undefined) {
      try {
        process.kill(this.pid, 'SIGTERM');
      } catch {
        // gone
      }
      // The grace timer is cleared once the daemon has exited: left pending, it kept the bench
      // process alive for up to graceMs after its last table was printed.
      let timer;
      const timedOut = await Promise.race([
        this.exited.then(() => false),
        new Promise((resolve) => (timer = setTimeout(() => resolve(true), graceMs))),
      ]);
      clearTimeout(timer);
      if (timedOut)
        process.stderr.write(
          `bench: ${this.name} (pid ${this.pid}) did not drain in ${graceMs} ms; killing its group\n`,
        );
    }
    // Whatever is left in its group (a harness it started, though those lead their own groups).
    try {
      process.kill(-this.pid, 'SIGKILL');
    } catch {
      // nothing left
    }
    await this.exited;
    releaseGroup(this.pid);
  }
}
