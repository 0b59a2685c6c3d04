#!/usr/bin/env node
// Summarises a V8 .cpuprofile (node --cpu-prof): self time by function and by package/file, and the
// total ("inclusive") time of chosen wiggum functions. For docs/performance.md.
//
//   node bench/profile-summary.mjs FILE.cpuprofile [--top 25] [--inclusive name1,name2] [--callers name]
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { top: { type: 'string', default: '25' }, inclusive: { type: 'string' }, callers: { type: 'string' } },
});
const profile = JSON.parse(readFileSync(positionals[0], 'utf8'));
const top = Number(values.top);

const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
const parent = new Map();
for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);

// Self time per node from the samples and their time deltas (µs).
const self = new Map();
for (let i = 0; i < profile.samples.length; i += 1) {
  const id = profile.samples[i];
  self.set(id, (self.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0));
}
const total = [...self.values()].reduce((a, b) => a + b, 0);

const where = (frame) => {
  const url = frame.url ?? '';
  if (url === '') return frame.functionName.startsWith('(') ? frame.functionName : '(native)';
  const nm = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (nm) return `npm:${nm[1]}`;
  const dist = /\/dist\/(.+)$/.exec(url);
  if (dist) return `wiggum:${dist[1]}`;
  if (url.startsWith('node:')) return url;
  return url.replace(/^file:\/\//, '');
};

const byFunction = new Map();
const byPlace = new Map();
for (const [id, us] of self) {
  const frame = nodes.get(id).callFrame;
  const place = where(frame);
  const key = `${frame.functionName || '(anonymous)'}  ${place}:${frame.lineNumber + 1}`;
  byFunction.set(key, (byFunction.get(key) ?? 0) + us);
  byPlace.set(place, (byPlace.get(place) ?? 0) + us);
}

const pct = (us) => `${((100 * us) / total).toFixed(1).padStart(5)} %  ${(us / 1000).toFixed(0).padStart(6)} ms`;
const print = (title, map) => {
  console.log(`\n${title}`);
  for (const [key, us] of [...map.entries()].sort((a, b) => b[1] - a[1]).slice(0, top))
    console.log(`  ${pct(us)}  ${key}`);
};
console.log(`${positionals[0]}: ${(total / 1000).toFixed(0)} ms sampled, ${profile.samples.length} samples`);
print('self time by package / file', byPlace);
print('self time by function', byFunction);

if (values.inclusive !== undefined) {
  // Inclusive time: samples whose stack contains a frame of that name (counted once per sample).
  const names = values.inclusive.split(',');
  const inclusive = new Map(names.map((name) => [name, 0]));
  for (const [id, us] of self) {
    const seen = new Set();
    for (let cur = id; cur !== undefined; cur = parent.get(cur)) {
      const name = nodes.get(cur).callFrame.functionName;
      if (inclusive.has(name) && !seen.has(name)) {
        seen.add(name);
        inclusive.set(name, inclusive.get(name) + us);
      }
    }
  }
  console.log('\ninclusive time (stack contains)');
  for (const [name, us] of inclusive) console.log(`  ${pct(us)}  ${name}`);
}

if (values.callers !== undefined) {
  // Self time of frames named like `callers`, split by their synchronous call stack (up to 6 frames).
  const name = values.callers;
  const stacks = new Map();
  for (const [id, us] of self) {
    if (nodes.get(id).callFrame.functionName !== name) continue;
    const chain = [];
    for (let cur = parent.get(id); cur !== undefined && chain.length < 6; cur = parent.get(cur)) {
      const frame = nodes.get(cur).callFrame;
      if (frame.functionName === '(root)') break;
      chain.push(`${frame.functionName || '(anonymous)'}@${where(frame)}:${frame.lineNumber + 1}`);
    }
    const key = chain.join(' < ');
    stacks.set(key, (stacks.get(key) ?? 0) + us);
  }
  console.log(`\ncallers of ${name}`);
  for (const [key, us] of [...stacks.entries()].sort((a, b) => b[1] - a[1]).slice(0, top))
    console.log(`  ${pct(us)}  ${key}`);
}
