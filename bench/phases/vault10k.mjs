// The 10,000-task vault: `wiggum status --json` as a whole process (without and with the daemon),
// the daemon's memory while it idles over the vault, and the same with its HTTP API on (api-state.mjs).
import { execFileSync, spawn } from 'node:child_process';
import { cpSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from '../lib/cleanup.mjs';
import { CLI, Daemon } from '../lib/daemon.mjs';
import { daemonConfig, finishedTaskText, makeVault, taskText, writeBenchAgent } from '../lib/fixtures.mjs';
import { sleep, summarize, timeBox } from '../lib/stats.mjs';
import { apiOf, apiStateSamples, enableApi } from './api-state.mjs';
import { spawnNodeNothing } from './floors.mjs';

export const APPROVED = 1_000;
export const FINISHED = 9_000;

/** 1,000 tasks in Approved/ (700 never run, 300 checkpointed: interrupted or stopped), 4,500 in Done/, 4,500 in Rejected/. */
export function buildVault10k() {
  const root = tempDir('vault10k');
  const marks = join(root, 'marks');
  const vault = makeVault(root, daemonConfig(writeBenchAgent(root), marks));
  for (let i = 0; i < APPROVED; i += 1) {
    const loop = i % 10 < 7 ? null : i % 2 === 0 ? 'interrupted' : 'stopped';
    writeFileSync(join(vault.approved, `Improve flow ${String(i).padStart(5, '0')}.md`), taskText(i, { loop }));
  }
  for (let i = 0; i < FINISHED; i += 1) {
    const kind = i % 2 === 0 ? 'done' : 'rejected';
    writeFileSync(
      join(kind === 'done' ? vault.done : vault.rejected, `Finished flow ${String(i).padStart(5, '0')}.md`),
      finishedTaskText(APPROVED + i, kind),
    );
  }
  return vault;
}

/** Runs `node dist/cli/main.js args…` to exit, reading its stdout; resolves with the wall time in ms. */
function timeCli(args, nodeArgs = []) {
  return new Promise((resolve, reject) => {
    const start = performance.now();
    const child = spawn(process.execPath, [...nodeArgs, CLI, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    const out = [];
    const err = [];
    child.stdout.on('data', (chunk) => out.push(chunk));
    child.stderr.on('data', (chunk) => err.push(chunk));
    child.once('error', reject);
    child.once('close', (code) => {
      const ms = performance.now() - start;
      if (code !== 0) reject(new Error(`wiggum ${args.join(' ')} exited ${code}: ${Buffer.concat(err).toString()}`));
      else resolve({ ms, stdout: Buffer.concat(out).toString() });
    });
  });
}

/** `wiggum status --json` interleaved with the floor `node -e 0`, both to exit; checks the answer. */
async function statusSamples(vault, { n, warmup, expectDaemon, maxMs, minN }) {
  const box = timeBox(maxMs, minN);
  const figure = [];
  const floor = [];
  for (let i = 0; i < warmup + n && box.more(figure.length); i += 1) {
    const { ms, stdout } = await timeCli(['status', '--json', '--vault', vault.root]);
    const view = JSON.parse(stdout);
    if (view.counts.approved !== APPROVED || view.counts.done + view.counts.rejected !== FINISHED)
      throw new Error(`status counted ${JSON.stringify(view.counts)}`);
    if ((view.daemon !== null) !== expectDaemon) throw new Error(`status saw daemon ${JSON.stringify(view.daemon)}`);
    if (view.tasks.length !== APPROVED) throw new Error(`status listed ${view.tasks.length} tasks`);
    const t = performance.now();
    await spawnNodeNothing();
    const floorMs = performance.now() - t;
    if (i >= warmup) {
      figure.push(ms);
      floor.push(floorMs);
    }
  }
  return { figure: summarize(figure), floor: summarize(floor) };
}

/** `wiggum --help`: the CLI's own start-up (node + commander), to split status into start-up and work. */
async function cliStartup({ n, warmup }) {
  const samples = [];
  for (let i = 0; i < warmup + n; i += 1) {
    const { ms } = await timeCli(['--help']);
    if (i >= warmup) samples.push(ms);
  }
  return summarize(samples);
}

/** How long after all tasks are queued the daemon counts as at rest. */
const AT_REST_MS = 30_000;

/** VmRSS 20 times over 2 s. */
async function sampleRss(daemon) {
  const rss = [];
  for (let i = 0; i < 20; i += 1) {
    rss.push(daemon.memory().rssMb);
    await sleep(100);
  }
  return rss;
}

/**
 * With `<vault>/STOP` present the daemon starts nothing: it scans Approved/, parses and queues all
 * 1,000 tasks (held), and idles. Resolves, the daemon still running, once its RSS has been sampled
 * after it queued them all (then `onStartedUp` is called) and again once it has settled (at rest).
 */
async function settledDaemon(vault, { nodeArgs = [], logName, onStartedUp = () => {} }) {
  const logDir = tempDir(logName);
  const startedAt = performance.now();
  const daemon = Daemon.start(vault.root, { logDir, nodeArgs });
  try {
    await daemon.waitForLog(/"event":"daemon.started"/, 60_000);
    const statusFile = join(vault.root, '.wiggum', 'status.json');
    let queuedMs = null;
    for (let waited = 0; waited < 60_000; waited += 50) {
      try {
        const status = JSON.parse(readFileSync(statusFile, 'utf8'));
        if (status.tasks.length === APPROVED && status.pid === daemon.pid) {
          queuedMs = performance.now() - startedAt;
          break;
        }
      } catch {
        // not written yet, or mid-replace (never: it is written atomically)
      }
      await sleep(50);
    }
    if (queuedMs === null) throw new Error('the daemon did not queue the 1,000 held tasks within 60 s');
    // Right after start-up V8 still holds the pages the 1,000 parses filled; its memory reducer
    // gives them back once the heap has been quiet for a while (about 15-25 s here). Both are
    // recorded: the first as a reference, the second is the daemon at rest.
    await sleep(2_000);
    const afterStartup = await sampleRss(daemon);
    onStartedUp();
    await sleep(Math.max(0, AT_REST_MS - (performance.now() - startedAt - queuedMs)));
    const rss = await sampleRss(daemon);
    const { hwmMb } = daemon.memory();
    return {
      daemon,
      figures: { rss: summarize(rss), afterStartup: summarize(afterStartup), hwmMb, startupToAllQueuedMs: queuedMs },
    };
  } catch (error) {
    await daemon.stop();
    throw error;
  }
}

/**
 * The vault again, for a second daemon beside the first (one daemon per vault): Approved/ and
 * `.wiggum/` copied (a task file with a second name is never run: src/vault/links.ts), the 9,000
 * finished tasks, which a daemon only counts, hard-linked.
 */
function copyBeside(vault) {
  const root = tempDir('vault10k-copy');
  for (const entry of readdirSync(vault.root)) {
    const from = join(vault.root, entry);
    if (from === vault.done || from === vault.rejected) execFileSync('cp', ['-al', from, root]);
    else cpSync(from, join(root, entry), { recursive: true });
  }
  return {
    ...vault,
    root,
    approved: join(root, 'Approved'),
    done: join(root, 'Done'),
    rejected: join(root, 'Rejected'),
  };
}

export async function vault10k({
  statusN,
  statusWarmup,
  statusMaxMs = Infinity,
  api: apiOptions,
  nodeArgs = [],
  profileArgs = null,
}) {
  const vault = buildVault10k();
  const withoutDaemon = await statusSamples(vault, {
    n: statusN,
    warmup: statusWarmup,
    expectDaemon: false,
    maxMs: statusMaxMs,
    minN: 5,
  });
  const startup = await cliStartup({ n: 6, warmup: 1 });
  if (profileArgs !== null) await timeCli(['status', '--json', '--vault', vault.root], profileArgs('status-no-daemon'));
  writeFileSync(join(vault.root, 'STOP'), '');
  // A second daemon with its HTTP API on, over a copy of the vault, starts once the first has done
  // its start-up work (parsed and queued the 1,000 and been sampled), so the two settle side by side
  // and the API costs no second 30 s wait; the first rests and is measured as before.
  const copy = copyBeside(vault);
  enableApi(copy);
  let apiStarted = null;
  const plainSettled = settledDaemon(vault, {
    nodeArgs,
    logName: 'daemon10k-log',
    onStartedUp: () => {
      apiStarted = settledDaemon(copy, { logName: 'daemon10k-api-log' });
      // Awaited below; until then its failure must not count as unhandled (the bench exits on those).
      apiStarted.catch(() => {});
    },
  });
  let plain = null;
  let api = null;
  try {
    plain = await plainSettled;
    const status = await statusSamples(vault, {
      n: statusN,
      warmup: statusWarmup,
      expectDaemon: true,
      maxMs: statusMaxMs,
      minN: 5,
    });
    if (profileArgs !== null)
      await timeCli(['status', '--json', '--vault', vault.root], profileArgs('status-daemon-up'));
    await plain.daemon.stop();
    api = await apiStarted;
    const state = await apiStateSamples(await apiOf(api.daemon, copy), {
      ...apiOptions,
      approved: APPROVED,
      finished: FINISHED,
      statusJson: async () => (await timeCli(['status', '--json', '--vault', copy.root])).stdout,
    });
    // What serving those requests left behind (the answers' strings, the connection), as a reference.
    const rssAfterRequests = summarize(await sampleRss(api.daemon));
    return {
      withoutDaemon,
      cliStartup: startup,
      idle: { ...plain.figures, status },
      withApi: { ...api.figures, state, rssAfterRequests },
    };
  } finally {
    // Whatever failed, neither daemon is left running (nor a failure of the second left unhandled).
    if (plain !== null && plain.daemon.exitCode === undefined) await plain.daemon.stop();
    if (apiStarted !== null) {
      const second = api ?? (await apiStarted.catch(() => null));
      if (second !== null && second.daemon.exitCode === undefined) await second.daemon.stop();
    }
  }
}
