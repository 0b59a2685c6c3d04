#!/usr/bin/env node
// Where the memory of the daemon's HTTP API goes (`daemon.http.listen`), two ways:
//
//   modules: fresh node processes (the daemon's flags, --expose-gc) load what `wiggum start`
//            loads anyway, then the API's packages one by one and wiggum's own src/http modules;
//            RSS, heap and external memory after two full GCs, before and after each step.
//   daemon:  `wiggum start` over the bench's 10,000-task vault (1,000 held by STOP), API off and on
//            in turn; at rest (30 s after all are queued, as `npm run bench` measures) VmRSS,
//            RssAnon/RssFile from /proc and, from inside the daemon (an --import hook answering
//            SIGUSR2), process.memoryUsage() before and after two full GCs (the live heap) and
//            V8's heap spaces.
//
//   node bench/experiments/api-memory.mjs [--rounds 5] [--daemons 2] [--only modules|daemon] [--snapshot [--snapshot-dir DIR]]
//
// --snapshot: each daemon also writes a heap snapshot at rest (after the GCs); the live heap's
// self sizes, summed by kind and by constructor, are compared between API off and on.
// --snapshot-dir DIR keeps the snapshots there (otherwise they go with the temp folders).
//
// Build first (npm run build). Prints a table per part; every figure goes to $TMPDIR/wiggum-api-memory.json.
import { execFileSync } from 'node:child_process';
import { appendFileSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { pathToFileURL } from 'node:url';
import { cleanupAll, tempDir } from '../lib/cleanup.mjs';
import { Daemon } from '../lib/daemon.mjs';
import { sleep, summarize } from '../lib/stats.mjs';
import { APPROVED, buildVault10k } from '../phases/vault10k.mjs';

const ROOT = join(import.meta.dirname, '..', '..');
const DIST = (path) => pathToFileURL(join(ROOT, 'dist', path)).href;
const MB = 1024 * 1024;
const FIELDS = ['rss', 'rssAnon', 'rssFile', 'heapUsed', 'heapTotal', 'external'];
/** The daemon's own node flags (dist/cli/main.js's shebang). */
const DAEMON_FLAGS = ['--max-semi-space-size=4'];

/** What each step imports: first what the daemon holds without the API, then the API's parts. */
const STEPS = [
  ['wiggum start without the API (dist/cli/start.js)', [DIST('cli/start.js')]],
  ['+ hono (core, body-limit, streaming)', ['hono', 'hono/body-limit', 'hono/streaming']],
  ['+ @hono/node-server', ['@hono/node-server']],
  ['+ prom-client', ['prom-client']],
  ["+ wiggum's src/http (start-api and what it imports)", [DIST('http/start-api.js')]],
];

const { values } = parseArgs({
  options: {
    rounds: { type: 'string', default: '5' },
    daemons: { type: 'string', default: '2' },
    only: { type: 'string' },
    snapshot: { type: 'boolean', default: false },
    'snapshot-dir': { type: 'string' },
    child: { type: 'boolean', default: false },
    'mem-out': { type: 'string' },
  },
});

/** In the child: import step by step, measuring after two full GCs each time. */
async function childSteps() {
  const measure = () => {
    globalThis.gc();
    globalThis.gc();
    const usage = process.memoryUsage();
    const status = readFileSync('/proc/self/status', 'utf8');
    const kb = (key) => Number(new RegExp(`^${key}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN) / 1024;
    return {
      rss: usage.rss / MB,
      rssAnon: kb('RssAnon'),
      rssFile: kb('RssFile'),
      heapUsed: usage.heapUsed / MB,
      heapTotal: usage.heapTotal / MB,
      external: usage.external / MB,
    };
  };
  const out = [{ step: 'node itself', ...measure() }];
  for (const [step, specifiers] of STEPS) {
    for (const specifier of specifiers) await import(specifier);
    out.push({ step, ...measure() });
  }
  process.stdout.write(JSON.stringify(out));
}

async function main() {
  const only = values.only;
  const results = {};
  try {
    if (only === undefined || only === 'modules') results.modules = modules(Number(values.rounds));
    if (only === undefined || only === 'daemon') results.daemon = await daemons(Number(values.daemons));
  } finally {
    cleanupAll();
  }
  const out = join(tmpdir(), 'wiggum-api-memory.json');
  writeFileSync(out, `${JSON.stringify(results, null, 2)}\n`);
  process.stdout.write(`\nevery figure: ${out}\n`);
}

function modules(rounds) {
  const runs = [];
  for (let i = 0; i < rounds; i += 1) {
    const text = execFileSync(process.execPath, [...DAEMON_FLAGS, '--expose-gc', import.meta.filename, '--child'], {
      encoding: 'utf8',
      env: { ...process.env, MALLOC_ARENA_MAX: '2' },
    });
    runs.push(JSON.parse(text));
  }
  // Per step, the median over the rounds of each figure and of its growth over the step before.
  const table = runs[0].map((row, step) => {
    const median = (f) => summarize(runs.map((run) => f(run, step))).p50;
    const entry = { step: row.step };
    for (const field of FIELDS) {
      entry[field] = median((run, s) => run[s][field]);
      entry[`${field}Added`] = step === 0 ? NaN : median((run, s) => run[s][field] - run[s - 1][field]);
    }
    return entry;
  });
  const api = (field) => summarize(runs.map((run) => run[run.length - 1][field] - run[1][field])).p50;
  process.stdout.write(
    `\nModule load, fresh node ${DAEMON_FLAGS.join(' ')} --expose-gc, MALLOC_ARENA_MAX=2, after 2 full GCs, median of ${rounds} (MB; growth over the step before in brackets):\n`,
  );
  for (const row of table)
    process.stdout.write(
      `  ${row.step.padEnd(52)} ${FIELDS.map((f) => `${f} ${row[f].toFixed(1)}${Number.isNaN(row[`${f}Added`]) ? '' : ` (+${row[`${f}Added`].toFixed(1)})`}`).join('  ')}\n`,
    );
  process.stdout.write(
    `  the API's modules in all (over the daemon's): ${FIELDS.map((f) => `${f} +${api(f).toFixed(1)}`).join('  ')}\n`,
  );
  return { rounds: runs, table };
}

/** The --import hook: on SIGUSR2 the daemon writes its own view of its memory to MEM_OUT. */
function writeHook(dir) {
  const file = join(dir, 'memory-hook.mjs');
  writeFileSync(
    file,
    [
      "import { readFileSync, writeFileSync } from 'node:fs';",
      "import { getHeapSpaceStatistics, writeHeapSnapshot } from 'node:v8';",
      "const rssMb = () => Number(/^VmRSS:\\s+(\\d+) kB/m.exec(readFileSync('/proc/self/status', 'utf8'))[1]) / 1024;",
      "process.on('SIGUSR2', () => {",
      '  const before = { ...process.memoryUsage(), rssMb: rssMb() };',
      '  globalThis.gc();',
      '  globalThis.gc();',
      '  const spaces = Object.fromEntries(getHeapSpaceStatistics().map((s) => [s.space_name, { size: s.space_size, used: s.space_used_size }]));',
      '  const after = { before, ...process.memoryUsage(), rssMb: rssMb(), spaces };',
      '  if (process.env.SNAP_OUT) writeHeapSnapshot(process.env.SNAP_OUT);',
      '  writeFileSync(process.env.MEM_OUT, JSON.stringify(after));',
      '});',
      '',
    ].join('\n'),
  );
  return file;
}

async function daemons(pairs) {
  const vault = buildVault10k();
  writeFileSync(join(vault.root, 'STOP'), '');
  const config = join(vault.root, '.wiggum', 'config.yaml');
  const plain = readFileSync(config, 'utf8');
  const dir = tempDir('api-memory');
  const hook = writeHook(dir);
  const runs = [];
  for (let i = 0; i < pairs; i += 1)
    for (const api of [false, true]) {
      writeFileSync(config, plain);
      if (api) appendFileSync(config, 'daemon:\n  http:\n    listen: 127.0.0.1:0\n');
      runs.push({ api, ...(await atRest(vault, { api, hook, dir, round: i })) });
      const last = runs[runs.length - 1];
      process.stderr.write(
        `api-memory: API ${api ? 'on ' : 'off'} VmRSS ${last.rss.toFixed(1)} MB, heapUsed ${last.heapUsed.toFixed(1)}, heapTotal ${last.heapTotal.toFixed(1)}\n`,
      );
    }
  const fields = [
    'rss',
    'rssAnon',
    'rssFile',
    'rssAfterGc',
    'heapUsedBeforeGc',
    'heapUsed',
    'heapTotal',
    'external',
    'code',
    'oldSize',
    'oldUsed',
  ];
  process.stdout.write(`\nDaemon at rest over 10k tasks, ${pairs} × off/on alternately (MB, each run):\n`);
  for (const run of runs)
    process.stdout.write(
      `  API ${run.api ? 'on ' : 'off'}  ${fields.map((f) => `${f} ${run[f].toFixed(1)}`).join('  ')}\n`,
    );
  const mean = (api, f) => {
    const xs = runs.filter((r) => r.api === api).map((r) => r[f]);
    return xs.reduce((a, b) => a + b, 0) / xs.length;
  };
  process.stdout.write(
    `  on − off (means): ${fields.map((f) => `${f} ${(mean(true, f) - mean(false, f)).toFixed(1)}`).join('  ')}\n`,
  );
  if (values.snapshot) compareHeaps(runs);
  return runs.map(({ heap: _heap, ...run }) => run);
}

/** A heap snapshot's self sizes summed by node type and by `type:name` (strings by type alone), in MB. */
function heapByKind(file) {
  const snapshot = JSON.parse(readFileSync(file, 'utf8'));
  const { node_fields: fields, node_types: types } = snapshot.snapshot.meta;
  const typeNames = types[0];
  const width = fields.length;
  const [typeAt, nameAt, sizeAt] = ['type', 'name', 'self_size'].map((f) => fields.indexOf(f));
  const byType = {};
  const byName = {};
  const nodes = snapshot.nodes;
  for (let i = 0; i < nodes.length; i += width) {
    const type = typeNames[nodes[i + typeAt]];
    const size = nodes[i + sizeAt] / MB;
    byType[type] = (byType[type] ?? 0) + size;
    const key =
      type === 'string' || type === 'concatenated string' || type === 'sliced string'
        ? type
        : `${type}:${snapshot.strings[nodes[i + nameAt]]}`;
    byName[key] = (byName[key] ?? 0) + size;
  }
  return { byType, byName };
}

function compareHeaps(runs) {
  const mean = (api, pick) => {
    const xs = runs.filter((r) => r.api === api).map((r) => pick(r.heap));
    const keys = new Set(xs.flatMap((x) => Object.keys(x)));
    return Object.fromEntries([...keys].map((k) => [k, xs.reduce((a, x) => a + (x[k] ?? 0), 0) / xs.length]));
  };
  for (const [title, pick, top, largest] of [
    ['by kind', (h) => h.byType, 20, false],
    ['by constructor (largest differences)', (h) => h.byName, 25, false],
    ['by constructor (largest with the API off)', (h) => h.byName, 25, true],
  ]) {
    const off = mean(false, pick);
    const on = mean(true, pick);
    const keys = [...new Set([...Object.keys(off), ...Object.keys(on)])]
      .map((k) => ({ k, off: off[k] ?? 0, on: on[k] ?? 0 }))
      .sort((a, b) => (largest ? b.off - a.off : Math.abs(b.on - b.off) - Math.abs(a.on - a.off)))
      .slice(0, top);
    process.stdout.write(`\nLive heap at rest, ${title} (MB, means; off → on, difference):\n`);
    for (const { k, off: a, on: b } of keys)
      process.stdout.write(
        `  ${k.slice(0, 60).padEnd(60)} ${a.toFixed(2).padStart(7)} → ${b.toFixed(2).padStart(7)}  ${(b - a >= 0 ? '+' : '') + (b - a).toFixed(2)}\n`,
      );
  }
}

async function atRest(vault, { api, hook, dir, round }) {
  const memOut = join(dir, `mem-${round}-${api ? 'on' : 'off'}.json`);
  const snapOut = join(values['snapshot-dir'] ?? dir, `heap-${round}-${api ? 'on' : 'off'}.heapsnapshot`);
  const daemon = Daemon.start(vault.root, {
    logDir: tempDir('api-memory-log'),
    nodeArgs: [...DAEMON_FLAGS, '--expose-gc', '--import', hook],
    env: { MEM_OUT: memOut, ...(values.snapshot ? { SNAP_OUT: snapOut } : {}) },
  });
  try {
    await daemon.waitForLog(/"event":"daemon.started"/, 60_000);
    const began = performance.now();
    for (;;) {
      try {
        const status = JSON.parse(readFileSync(join(vault.root, '.wiggum', 'status.json'), 'utf8'));
        if (status.tasks.length === APPROVED && status.pid === daemon.pid) break;
      } catch {
        // not written yet
      }
      if (performance.now() - began > 60_000) throw new Error('the daemon did not queue the tasks within 60 s');
      await sleep(50);
    }
    await sleep(30_000);
    const proc = readFileSync(`/proc/${daemon.pid}/status`, 'utf8');
    const kb = (key) => Number(new RegExp(`^${key}:\\s+(\\d+) kB`, 'm').exec(proc)?.[1] ?? NaN) / 1024;
    process.kill(daemon.pid, 'SIGUSR2');
    let inside = null;
    for (let i = 0; i < 1_500 && inside === null; i += 1) {
      await sleep(20);
      try {
        inside = JSON.parse(readFileSync(memOut, 'utf8'));
      } catch {
        // not yet
      }
    }
    if (inside === null) throw new Error('the daemon did not answer SIGUSR2');
    return {
      rss: kb('VmRSS'),
      rssAnon: kb('RssAnon'),
      rssFile: kb('RssFile'),
      heapUsedBeforeGc: inside.before.heapUsed / MB,
      rssAfterGc: inside.rssMb,
      heapUsed: inside.heapUsed / MB,
      heapTotal: inside.heapTotal / MB,
      external: inside.external / MB,
      code: inside.spaces.code_space.used / MB,
      oldSize: inside.spaces.old_space.size / MB,
      oldUsed: inside.spaces.old_space.used / MB,
      spaces: inside.spaces,
      ...(values.snapshot ? { heap: heapByKind(snapOut) } : {}),
    };
  } finally {
    await daemon.stop();
  }
}

// Last, once every constant above is initialized.
if (values.child) await childSteps();
else await main();
