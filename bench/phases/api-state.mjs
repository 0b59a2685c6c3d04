// The daemon's HTTP API over the 10,000-task vault: `GET /api/v1/state` as a client sees it, beside
// what the same answer costs without the API (`wiggum status --json`) and without wiggum (a bare
// node:http server sending the same bytes).
import { spawn } from 'node:child_process';
import { appendFileSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { releaseGroup, tempDir, trackGroup } from '../lib/cleanup.mjs';
import { sleep, summarize, timeBox } from '../lib/stats.mjs';

/** How long the daemon serves one reading of the vault to every request for it (READING_FRESH_MS in src/http/start-api.ts). */
export const SHARE_MS = 500;
/** A fresh request starts this long after the one before it ended: past the window, whatever the clocks' skew. */
const FRESH_GAP_MS = SHARE_MS + 50;
/** Back-to-back requests are counted as shared only while this much has passed since the read that primed them. */
const SHARED_WITHIN_MS = SHARE_MS - 100;

/** `daemon.http.listen: 127.0.0.1:0` in the vault's config: the next daemon started there serves the API on a free port. */
export function enableApi(vault) {
  appendFileSync(join(vault.root, '.wiggum', 'config.yaml'), 'daemon:\n  http:\n    listen: 127.0.0.1:0\n');
}

/** The API's address (from the daemon's `api.listening` log line) and its bearer token (`.wiggum/http-token`). */
export async function apiOf(daemon, vault) {
  await daemon.waitForLog(/"event":"api.listening"/, 60_000);
  const url = daemon.lines().find((line) => line.event === 'api.listening')?.url;
  if (typeof url !== 'string') throw new Error('the daemon logged api.listening without a url');
  const token = readFileSync(join(vault.root, '.wiggum', 'http-token'), 'utf8').trim();
  return { url, token };
}

/** One GET to its end (the whole body read); resolves with the wall time in ms and the body. */
async function timeGet(url, headers = {}) {
  const start = performance.now();
  const response = await fetch(url, { headers });
  const body = await response.text();
  const ms = performance.now() - start;
  if (response.status !== 200) throw new Error(`GET ${url} answered ${response.status}: ${body.slice(0, 300)}`);
  return { ms, body, endedAt: performance.now() };
}

/**
 * A node:http server in a process of its own on 127.0.0.1, answering every request with the same
 * static body (the API's answer, as bytes); `GET /connections` says how many it has accepted.
 */
async function startBareServer(body) {
  const dir = tempDir('bare-http');
  const file = join(dir, 'body.json');
  writeFileSync(file, body);
  const script = [
    "const http = require('node:http');",
    `const body = require('node:fs').readFileSync(${JSON.stringify(file)});`,
    'let connections = 0;',
    'const server = http.createServer((request, response) => {',
    "  if (request.url === '/connections') return response.end(String(connections));",
    "  response.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': body.length });",
    '  response.end(body);',
    '});',
    "server.on('connection', () => { connections += 1; });",
    "server.listen(0, '127.0.0.1', () => process.stdout.write(`${server.address().port}\\n`));",
  ].join('\n');
  const child = spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'pipe', 'inherit'], detached: true });
  trackGroup(child.pid);
  const exited = new Promise((resolve) => child.once('exit', resolve));
  const port = await new Promise((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (chunk) => {
      out += chunk;
      if (out.includes('\n')) resolve(Number(out.trim()));
    });
    child.once('error', reject);
    child.once('exit', (code) => reject(new Error(`the bare node:http server exited (${code}) before listening`)));
  });
  return {
    url: `http://127.0.0.1:${port}/`,
    async connections() {
      return Number((await timeGet(`http://127.0.0.1:${port}/connections`)).body);
    },
    async close() {
      try {
        process.kill(-child.pid, 'SIGKILL');
      } catch {
        // gone
      }
      await exited;
      releaseGroup(child.pid);
    },
  };
}

/** Checks an answer of /api/v1/state against the vault: every count, the 1,000 held tasks, the daemon. */
function checkState(body, { approved, finished }) {
  const view = JSON.parse(body);
  if (view.counts?.approved !== approved || view.counts.done + view.counts.rejected !== finished)
    throw new Error(`/api/v1/state counted ${JSON.stringify(view.counts)}`);
  if (view.daemon === null) throw new Error('/api/v1/state saw no daemon');
  if (view.tasks.length !== approved) throw new Error(`/api/v1/state listed ${view.tasks.length} tasks`);
  return view;
}

/**
 * `GET /api/v1/state` from this process's fetch (undici: keep-alive), the daemon at rest.
 *
 * fresh: each request starts more than 550 ms after the one before it ended, so the daemon reads the
 * vault for it; `statusJson` (`wiggum status --json`, spawned to exit, the same reading in a process
 * of its own) runs in each pause, interleaved. shared: bursts of back-to-back requests, each burst
 * primed by a read and counted only while under 400 ms have passed since it, so every counted request
 * is served from that read; after each burst as many requests to a bare node:http server sending the
 * same bytes, interleaved burst by burst.
 */
export async function apiStateSamples(
  { url, token },
  { statusJson, approved, finished, freshN, freshWarmup, sharedN, sharedWarmup, maxMs },
) {
  const stateUrl = `${url}/api/v1/state`;
  const headers = { authorization: `Bearer ${token}` };
  let requests = 0;
  const getState = () => {
    requests += 1;
    return timeGet(stateUrl, headers);
  };
  // What status --json prints is what the API answers (the view's fields, the vault, the blocked),
  // but for `updatedAtMs`: the moment each picture was taken (the API's from the daemon's memory,
  // the CLI's from the status.json the daemon last wrote).
  const cli = JSON.parse(await statusJson());
  const first = await getState();
  const api = checkState(first.body, { approved, finished });
  const same = JSON.stringify({ ...api, updatedAtMs: 0 }) === JSON.stringify({ ...cli, updatedAtMs: 0 });
  if (!same) throw new Error('/api/v1/state does not answer what wiggum status --json prints');
  let lastEnd = first.endedAt;

  const fresh = [];
  const statusFloor = [];
  const freshBox = timeBox(maxMs, 5);
  for (let i = 0; i < freshWarmup + freshN && freshBox.more(fresh.length); i += 1) {
    await sleep(Math.max(0, lastEnd + FRESH_GAP_MS - performance.now()));
    const got = await getState();
    lastEnd = got.endedAt;
    checkState(got.body, { approved, finished });
    const t = performance.now();
    await statusJson();
    const statusMs = performance.now() - t;
    if (i >= freshWarmup) {
      fresh.push(got.ms);
      statusFloor.push(statusMs);
    }
  }

  const bare = await startBareServer(first.body);
  const shared = [];
  const floor = [];
  let bursts = 0;
  try {
    const sharedBox = timeBox(maxMs, 50);
    while (shared.length < sharedWarmup + sharedN && sharedBox.more(shared.length - sharedWarmup)) {
      await sleep(Math.max(0, lastEnd + FRESH_GAP_MS - performance.now()));
      const primedAt = performance.now();
      const prime = await getState();
      let kept = 0;
      while (performance.now() - primedAt < SHARED_WITHIN_MS && shared.length < sharedWarmup + sharedN) {
        const got = await getState();
        if (got.body.length !== prime.body.length) throw new Error('a shared answer differs from the read it shares');
        shared.push(got.ms);
        kept += 1;
      }
      lastEnd = performance.now();
      for (let k = 0; k < kept; k += 1) floor.push((await timeGet(bare.url)).ms);
      bursts += 1;
    }
    const bareConnections = await bare.connections();
    return {
      bytes: Buffer.byteLength(first.body),
      // Every GET /api/v1/state made, warm-ups and primes included.
      requests,
      sameAsStatusJson: same,
      fresh: summarize(fresh),
      statusFloor: summarize(statusFloor),
      shared: summarize(shared.slice(sharedWarmup)),
      floor: summarize(floor.slice(sharedWarmup)),
      sharedBursts: bursts,
      // A few (undici opens two here), not one per request: fetch kept its connections alive.
      bareConnections,
    };
  } finally {
    await bare.close();
  }
}
