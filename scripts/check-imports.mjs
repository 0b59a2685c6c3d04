#!/usr/bin/env node
// Fails when modules under src/ import each other in a cycle, or when a folder imports a folder
// that docs/architecture.md lists above it. The order is read from that document's table, so the
// documented layering and the checked one cannot drift apart; a folder missing from the table fails
// too. Type-only imports count: a cycle of types is still a sign that two concepts are not cut apart.
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';

const root = resolve(process.argv[2] ?? 'src');
const architecture = resolve(process.argv[3] ?? 'docs/architecture.md');

/** Rank per folder (`cli`) or root file (`errors.ts`): the table's row number, top row first. */
function layerRanks() {
  const ranks = new Map();
  let row = 0;
  for (const line of readFileSync(architecture, 'utf8').split('\n')) {
    if (!line.startsWith('| `')) continue;
    const firstCell = line.split('|')[1] ?? '';
    for (const [, name] of firstCell.matchAll(/`([^`]+)`/g)) ranks.set(name.replace(/\/$/, ''), row);
    row += 1;
  }
  return ranks;
}

const files = [];
(function walk(dir) {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) walk(path);
    else if (path.endsWith('.ts')) files.push(path);
  }
})(root);

const IMPORT = /(?:^|\n)\s*(?:import|export)\s[^'"]*?from\s+['"](\.[^'"]+)['"]/g;
const graph = new Map();
for (const file of files) {
  const edges = [];
  for (const match of readFileSync(file, 'utf8').matchAll(IMPORT)) {
    edges.push(resolve(dirname(file), match[1].replace(/\.js$/, '.ts')));
  }
  graph.set(file, edges.filter((edge) => files.includes(edge)));
}

/** The layer a module belongs to: its top folder under src/, or its own name for a root file. */
const layerOf = (file) => relative(root, file).split(sep)[0];

const problems = new Set();
const ranks = layerRanks();
for (const file of files) {
  const from = layerOf(file);
  if (!ranks.has(from)) {
    problems.add(`${relative(process.cwd(), file)}: ${from} is not in the table of ${relative(process.cwd(), architecture)}; add it where it belongs`);
    continue;
  }
  for (const edge of graph.get(file)) {
    const to = layerOf(edge);
    if (to === from || !ranks.has(to)) continue;
    if (ranks.get(to) <= ranks.get(from)) {
      problems.add(`${relative(process.cwd(), file)} imports ${relative(process.cwd(), edge)}: ${from} may import only what ${relative(process.cwd(), architecture)} lists below it`);
    }
  }
}

// Tarjan's strongly connected components: any component with more than one file is a cycle.
let index = 0;
const indices = new Map();
const lowlinks = new Map();
const stack = [];
const onStack = new Set();
function connect(node) {
  indices.set(node, index);
  lowlinks.set(node, index);
  index += 1;
  stack.push(node);
  onStack.add(node);
  for (const next of graph.get(node) ?? []) {
    if (!indices.has(next)) {
      connect(next);
      lowlinks.set(node, Math.min(lowlinks.get(node), lowlinks.get(next)));
    } else if (onStack.has(next)) {
      lowlinks.set(node, Math.min(lowlinks.get(node), indices.get(next)));
    }
  }
  if (lowlinks.get(node) === indices.get(node)) {
    const component = [];
    let member;
    do {
      member = stack.pop();
      onStack.delete(member);
      component.push(member);
    } while (member !== node);
    if (component.length > 1) problems.add(`import cycle: ${component.map((f) => relative(process.cwd(), f)).join(' ↔ ')}`);
  }
}
for (const file of files) if (!indices.has(file)) connect(file);

if (problems.size > 0) {
  for (const problem of problems) console.error(problem);
  process.exit(1);
}
console.log(`${files.length} modules: no import cycles, every import points down the layers of ${relative(process.cwd(), architecture)}`);
