// Where a `wiggum run` spends its time between agent runs, from a V8 CPU profile (--cpu-prof):
// each sample of the main thread goes to the innermost frame of its stack that names a part of
// the loop; samples before the first spawn (node's start-up, loading the config) are left out.
import { readFileSync } from 'node:fs';

/** Innermost match wins: a YAML parse inside the checkpoint write counts as parse. */
const PARTS = [
  ['spawn: fork and exec from node', (f) => f.functionName === 'spawn' && f.url.includes('child_process')],
  ['process-table look (strays, usage)', (f) => /^(scanProc|readMarked|pidCounters|findMarked)$/.test(f.functionName)],
  ['parse (YAML, schema)', (f) => /node_modules\/(yaml|zod)\//.test(f.url) || /^parseTask/.test(f.functionName)],
  ['log (pino)', (f) => /node_modules\/(pino|sonic-boom)/.test(f.url)],
  ['prompt', (f) => f.functionName === 'buildPrompt'],
  [
    'harness record (harness.json)',
    (f) => /^(recordHarness|recordHarnessMarker|clearHarnessRecord)$/.test(f.functionName),
  ],
  ['history append', (f) => /^(appendHistory|appendJsonLine)$/.test(f.functionName)],
  ['checkpoint write (render, write)', (f) => /^(writeCheckpoint|updateTaskFile)$/.test(f.functionName)],
  [
    'memory and task reads',
    (f) =>
      /^(loadPrd|loadContext|loadProgress|loadHistory|agentFiles|absorb|reloadTaskFile|storiesAddedDuringRun|readTaskFileSync)$/.test(
        f.functionName,
      ),
  ],
  [
    'agent output, pipes and the run log',
    (f) => /^(supervise|onData|drainOutput|write|close)$/.test(f.functionName) && f.url.includes('harness'),
  ],
];

/**
 * ms per iteration for each part, plus `(idle)` (the main thread waiting: on the agent, on fsyncs
 * and other thread-pool work, on pipes), `(garbage collector)` and `other` (the loop's own code,
 * decide, events, node internals). `iterations`: how many agent runs the profiled process made.
 */
export function profileBuckets(file, iterations) {
  const profile = JSON.parse(readFileSync(file, 'utf8'));
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parent = new Map();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const partOf = new Map();
  const classify = (id) => {
    if (partOf.has(id)) return partOf.get(id);
    const frame = byId.get(id).callFrame;
    let part = null;
    if (frame.functionName === '(idle)' || frame.functionName === '(garbage collector)') part = frame.functionName;
    else part = PARTS.find(([, match]) => match(frame))?.[0] ?? null;
    if (part === null) part = parent.has(id) ? classify(parent.get(id)) : 'other';
    partOf.set(id, part);
    return part;
  };
  const totals = new Map();
  let counting = false;
  for (let i = 0; i < profile.samples.length; i += 1) {
    const id = profile.samples[i];
    if (!counting && classify(id).startsWith('spawn')) counting = true;
    if (!counting) continue;
    const dt = (profile.timeDeltas[i + 1] ?? 0) / 1000;
    const part = classify(id);
    totals.set(part, (totals.get(part) ?? 0) + dt);
  }
  return Object.fromEntries([...totals].map(([part, ms]) => [part, ms / iterations]).sort((a, b) => b[1] - a[1]));
}
