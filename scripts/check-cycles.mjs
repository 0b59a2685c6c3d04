#!/usr/bin/env node
// Fails when modules under the given folder import each other in a cycle. Type-only imports
// count too: a cycle of types is still a sign that two concepts are not cut apart.
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

const root = resolve(process.argv[2] ?? 'src');
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
  graph.set(file, edges.filter((edge) => graph.has(edge) || files.includes(edge)));
}

// Tarjan's strongly connected components: any component with more than one file is a cycle.
let index = 0;
const indices = new Map();
const lowlinks = new Map();
const stack = [];
const onStack = new Set();
const cycles = [];
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
    if (component.length > 1) cycles.push(component);
  }
}
for (const file of files) if (!indices.has(file)) connect(file);

if (cycles.length > 0) {
  for (const cycle of cycles) console.error(`import cycle: ${cycle.map((f) => relative(process.cwd(), f)).join(' ↔ ')}`);
  process.exit(1);
}
console.log(`no import cycles in ${files.length} modules`);
