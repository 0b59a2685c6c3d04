#!/usr/bin/env node
// Holds the boundaries docs/architecture.md states, reading them from that document's tables so the
// documented rules and the checked ones cannot drift apart:
// - layers: a folder imports only folders listed below it (static and dynamic `import()` alike);
//   a folder missing from the table fails too;
// - no import cycles (type-only imports count: a cycle of types is still two concepts not cut apart);
// - placement: each outside package or effect (child_process, chokidar, process.exit, …) only where
//   its row says;
// - short commands: the modules they load never load `yaml` or `zod` (half of a short command's time);
// - time and chance: timers, the clock and random values (setTimeout, Date.now(), Math.random(),
//   randomUUID, …) only where their row says; elsewhere the injected Clock or random is used.
// A dynamic `import()` of a computed path fails: the check could not see where it points.
// Modules are read with TypeScript's parser, not regular expressions: comments and strings that
// look like imports are not imports, and `import type` (erased at build) is told apart.
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import ts from 'typescript';

const root = resolve(process.argv[2] ?? 'src');
const architecture = resolve(process.argv[3] ?? 'docs/architecture.md');
const shown = (path) => relative(process.cwd(), path);

// ---- the rules, from the document ----

/**
 * Every table of a Markdown document, keyed by the first cell of its header row; each row a list of
 * cells. Keyed by header so that any other table in the document (a map, a list of files) is not
 * mistaken for a rule.
 */
function readTables(markdown) {
  const tables = new Map();
  let rows = null;
  for (const line of markdown.split('\n')) {
    if (!line.startsWith('|')) {
      rows = null;
      continue;
    }
    const cells = line
      .split('|')
      .slice(1, -1)
      .map((cell) => cell.trim());
    if (rows === null) tables.set(cells[0], (rows = []));
    else if (!/^-+$/.test(cells[0].replace(/:/g, ''))) rows.push(cells);
  }
  return tables;
}

/** The names in a cell written as code: `` `harness/`, `git/` `` → ['harness/', 'git/']. */
const codeIn = (cell = '') => [...cell.matchAll(/`([^`]+)`/g)].map(([, name]) => name);

function requireTable(tables, header) {
  const rows = tables.get(header);
  if (rows === undefined) {
    fail([`${shown(architecture)} has no table headed "${header}"; the import check reads its rules from it`]);
  }
  return rows;
}

/** Rank per folder (`cli`) or root file (`errors.ts`): the layer table's row number, top row first. */
function layerRanks(rows) {
  const ranks = new Map();
  rows.forEach((cells, row) => {
    for (const name of codeIn(cells[0])) ranks.set(name.replace(/\/$/, ''), row);
  });
  return ranks;
}

/** Placement rows: `{ what: ['chokidar'], onlyIn: ['vault/file-events.ts'] }`. */
const placementRules = (rows) => rows.map((cells) => ({ what: codeIn(cells[0]), onlyIn: codeIn(cells[1]) }));

/** Time-and-chance rows: `{ what: ['Date.now()'], onlyIn: ['time/clock.ts'], instead: 'clock.now() of …' }`. */
const effectRules = (rows) =>
  rows.map((cells) => ({
    what: codeIn(cells[0]),
    onlyIn: codeIn(cells[1]),
    instead: (cells[2] ?? '').replace(/`/g, ''),
  }));

/** Short-command rows: `{ modules: ['cli/status.ts'], never: ['yaml', 'zod'] }`. */
const shortCommandRules = (rows) => rows.map((cells) => ({ modules: codeIn(cells[1]), never: codeIn(cells[2]) }));

// ---- the modules ----

function listModules(dir, into = []) {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) listModules(path, into);
    else if (path.endsWith('.ts')) into.push(path);
  }
  return into;
}

/**
 * What one module imports and which effects it uses: each import with its specifier, whether it is
 * type-only (erased at build: no load at run time) and whether it is dynamic; each `import()` whose
 * path is computed; each `process.exit`.
 */
function readModule(file) {
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
  const found = { imports: [], computedImports: [], exits: [], effects: [] };
  const lineOf = (node) => source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1;
  const visit = (node) => {
    if (isStaticImport(node)) {
      const typeOnly = ts.isImportDeclaration(node) ? node.importClause?.isTypeOnly === true : node.isTypeOnly;
      found.imports.push({ specifier: node.moduleSpecifier.text, typeOnly, dynamic: false, line: lineOf(node) });
      if (importsExit(node)) found.exits.push(lineOf(node));
    } else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
      const [path] = node.arguments;
      if (path !== undefined && ts.isStringLiteralLike(path)) {
        found.imports.push({ specifier: path.text, typeOnly: false, dynamic: true, line: lineOf(node) });
      } else {
        found.computedImports.push(lineOf(node));
      }
    } else if (isProcessExit(node)) {
      found.exits.push(lineOf(node));
    }
    for (const name of timeAndChance(node)) found.effects.push({ name, line: lineOf(node) });
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/** `import … from '…'` or `export … from '…'` (an `export` of local names has no specifier). */
const isStaticImport = (node) =>
  (ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) &&
  node.moduleSpecifier !== undefined &&
  ts.isStringLiteral(node.moduleSpecifier);

/** `process.exit` or `process['exit']`, called or passed on. */
function isProcessExit(node) {
  const isMember = ts.isPropertyAccessExpression(node) || ts.isElementAccessExpression(node);
  if (!isMember || !ts.isIdentifier(node.expression) || node.expression.text !== 'process') return false;
  if (ts.isPropertyAccessExpression(node)) return node.name.text === 'exit';
  return ts.isStringLiteralLike(node.argumentExpression) && node.argumentExpression.text === 'exit';
}

const TIMERS = ['setTimeout', 'setInterval', 'setImmediate'];
const IDS = ['randomUUID', 'randomBytes'];
/** Each name the time-and-chance table may use, as the table writes it. */
const EFFECT_NAMES = [...TIMERS, 'Date.now()', 'new Date()', 'performance.now()', 'Math.random()', ...IDS];
const GLOBALS = ['globalThis', 'global', 'window'];

/**
 * The timers, clock readings and random values a node uses, by the names the table uses: a global
 * timer named or called (`setTimeout(…)`, `globalThis.setInterval`), one imported from `node:timers`
 * (or its promises), `Date.now`, a `new Date()` without argument, `performance.now`, `Math.random`,
 * and `randomUUID`/`randomBytes` imported from `node:crypto` or reached as `crypto.randomUUID`.
 */
function timeAndChance(node) {
  if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier)) {
    const from = node.moduleSpecifier.text.replace(/^node:/, '');
    const names = from === 'crypto' ? IDS : ['timers', 'timers/promises'].includes(from) ? TIMERS : [];
    const bindings = node.importClause?.namedBindings;
    if (names.length === 0 || node.importClause?.isTypeOnly || bindings === undefined || !ts.isNamedImports(bindings)) {
      return [];
    }
    return bindings.elements
      .map((element) => (element.propertyName ?? element.name).text)
      .filter((name) => names.includes(name));
  }
  if (ts.isNewExpression(node) && ts.isIdentifier(node.expression) && node.expression.text === 'Date') {
    return (node.arguments ?? []).length === 0 ? ['new Date()'] : [];
  }
  if (ts.isPropertyAccessExpression(node)) {
    const owner = ts.isIdentifier(node.expression) ? node.expression.text : null;
    const member = node.name.text;
    if (owner === 'Date' && member === 'now') return ['Date.now()'];
    if (owner === 'performance' && member === 'now') return ['performance.now()'];
    if (owner === 'Math' && member === 'random') return ['Math.random()'];
    if (IDS.includes(member) && (owner === 'crypto' || /\.crypto$/.test(node.expression.getText()))) return [member];
    if (TIMERS.includes(member) && GLOBALS.includes(owner)) return [member];
    return [];
  }
  if (ts.isIdentifier(node) && TIMERS.includes(node.text) && isGlobalReference(node)) return [node.text];
  return [];
}

/**
 * Whether an identifier is read as a value, not declared or named as a member. Scopes are not
 * followed: a local binding named like a timer counts as the timer (name it otherwise).
 */
function isGlobalReference(node) {
  const parent = node.parent;
  if (ts.isPropertyAccessExpression(parent) && parent.name === node) return false;
  if (ts.isImportSpecifier(parent) || ts.isImportClause(parent)) return false;
  const declares =
    ts.isVariableDeclaration(parent) ||
    ts.isParameter(parent) ||
    ts.isFunctionDeclaration(parent) ||
    ts.isPropertyAssignment(parent) ||
    ts.isPropertyDeclaration(parent) ||
    ts.isPropertySignature(parent) ||
    ts.isMethodDeclaration(parent) ||
    ts.isMethodSignature(parent);
  return !(declares && parent.name === node);
}

/** `import { exit } from 'node:process'`: the same effect under another name. */
function importsExit(node) {
  const bindings = ts.isImportDeclaration(node) ? node.importClause?.namedBindings : undefined;
  if (bindings === undefined || !ts.isNamedImports(bindings)) return false;
  if (!['process', 'node:process'].includes(node.moduleSpecifier.text)) return false;
  return bindings.elements.some((element) => (element.propertyName ?? element.name).text === 'exit');
}

/** The module a relative specifier names (`./load.js` → `…/load.ts`), or null for a package. */
function targetOf(file, specifier) {
  return specifier.startsWith('.') ? resolve(dirname(file), specifier.replace(/\.js$/, '.ts')) : null;
}

/** A package's name from a specifier (`node:child_process` → `child_process`, `pino/file` → `pino`). */
function packageOf(specifier) {
  const bare = specifier.replace(/^node:/, '');
  const parts = bare.split('/');
  return bare.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0];
}

// ---- the checks; each returns its problems as lines ----

/** The layer a module belongs to: its top folder under src/, or its own name for a root file. */
const layerOf = (file) => relative(root, file).split(sep)[0];

/** A layer as the table writes it: `vault/` for a folder, `errors.ts` for a root file. */
const layerName = (layer) => (layer.endsWith('.ts') ? layer : `${layer}/`);

function checkLayers(modules, ranks) {
  const problems = [];
  for (const [file, { imports }] of modules) {
    const from = layerOf(file);
    if (!ranks.has(from)) {
      problems.push(
        `${shown(file)}: ${from} is not in the layer table of ${shown(architecture)}; add it where it belongs`,
      );
      continue;
    }
    for (const { specifier, dynamic, line } of imports) {
      const target = targetOf(file, specifier);
      if (target === null || !modules.has(target)) continue;
      const to = layerOf(target);
      if (to !== from && ranks.has(to) && ranks.get(to) <= ranks.get(from)) {
        const how = dynamic ? 'import()s' : 'imports';
        const [upper, lower] = [layerName(to), layerName(from)];
        problems.push(
          `${shown(file)}:${line} ${how} ${specifier} (${shown(target)}): ${upper} sits above ${lower} in the layer table of ` +
            `${shown(architecture)}, and ${lower} may import only what it lists below ${lower}`,
        );
      }
    }
  }
  return problems;
}

function checkComputedImports(modules) {
  const problems = [];
  for (const [file, { computedImports }] of modules) {
    for (const line of computedImports) {
      problems.push(
        `${shown(file)}:${line} import() of a computed path: write the path as a string literal, so the layers can be checked`,
      );
    }
  }
  return problems;
}

/** Whether a module (its path under src/) is one a rule names: a folder (`harness/`) or a file. */
const isIn = (path, places) => places.some((place) => (place.endsWith('/') ? path.startsWith(place) : path === place));

function checkPlacement(modules, rules) {
  const problems = [];
  for (const [file, { imports, exits }] of modules) {
    const path = relative(root, file).split(sep).join('/');
    for (const { what, onlyIn } of rules) {
      if (isIn(path, onlyIn)) continue;
      const packages = what.map(packageOf);
      const uses = [
        ...(what.includes('process.exit') ? exits : []),
        ...imports
          .filter(({ specifier }) => !specifier.startsWith('.') && packages.includes(packageOf(specifier)))
          .map(({ line }) => line),
      ];
      for (const line of uses) {
        problems.push(
          `${shown(file)}:${line} uses ${what.join(', ')}, which ${shown(architecture)} keeps in ${onlyIn.join(', ')}`,
        );
      }
    }
  }
  return problems;
}

/** Timers, clock readings and random values only in the files their row names; elsewhere what the row says to use. */
function checkTimeAndChance(modules, rules) {
  const problems = [];
  for (const { what } of rules) {
    for (const name of what.filter((name) => !EFFECT_NAMES.includes(name))) {
      problems.push(
        `${shown(architecture)} names ${name} in its time-and-chance table, which the check does not know (it knows ${EFFECT_NAMES.join(', ')})`,
      );
    }
  }
  for (const [file, { effects }] of modules) {
    const path = relative(root, file).split(sep).join('/');
    for (const { name, line } of effects) {
      const rule = rules.find(({ what }) => what.includes(name));
      if (rule !== undefined && isIn(path, rule.onlyIn)) continue;
      const where = rule === undefined ? 'nowhere' : `only in ${rule.onlyIn.join(', ')}`;
      const instead = rule === undefined || rule.instead === '' ? '' : `: use ${rule.instead} instead`;
      problems.push(`${shown(file)}:${line} uses ${name}, which ${shown(architecture)} allows ${where}${instead}`);
    }
  }
  return problems;
}

/**
 * The modules a short command loads are its module and all it imports at load time (static,
 * not type-only: a dynamic `import()` is loaded only when needed). None of them may import a
 * package the rule names.
 */
function checkShortCommands(modules, rules) {
  const problems = [];
  for (const { modules: entries, never } of rules) {
    for (const entry of entries) {
      const start = join(root, entry);
      if (!modules.has(start)) {
        problems.push(
          `${shown(architecture)} names ${entry} as a short command's module, but ${shown(start)} does not exist`,
        );
        continue;
      }
      for (const [file, path] of loadedBy(start, modules)) {
        for (const { specifier, typeOnly, dynamic, line } of modules.get(file).imports) {
          if (typeOnly || dynamic || !never.includes(packageOf(specifier))) continue;
          const chain = path.map(shown).join(' → ');
          problems.push(
            `${shown(file)}:${line} imports ${specifier}, loaded by a short command (${chain}); load it with import() where it is needed`,
          );
        }
      }
    }
  }
  return problems;
}

/** Each module loaded with `start`, with the chain of imports that loads it. */
function loadedBy(start, modules) {
  const chains = new Map([[start, [start]]]);
  const queue = [start];
  while (queue.length > 0) {
    const file = queue.shift();
    for (const { specifier, typeOnly, dynamic } of modules.get(file).imports) {
      const target = targetOf(file, specifier);
      if (typeOnly || dynamic || target === null || !modules.has(target) || chains.has(target)) continue;
      chains.set(target, [...chains.get(file), target]);
      queue.push(target);
    }
  }
  return chains;
}

/** Tarjan's strongly connected components over static imports: any component of more than one file is a cycle. */
function checkCycles(modules) {
  const edges = new Map();
  for (const [file, { imports }] of modules) {
    const targets = imports.filter(({ dynamic }) => !dynamic).map(({ specifier }) => targetOf(file, specifier));
    edges.set(
      file,
      targets.filter((target) => modules.has(target)),
    );
  }
  const problems = [];
  let index = 0;
  const indices = new Map();
  const lowlinks = new Map();
  const stack = [];
  const onStack = new Set();
  const connect = (node) => {
    indices.set(node, index);
    lowlinks.set(node, index);
    index += 1;
    stack.push(node);
    onStack.add(node);
    for (const next of edges.get(node)) {
      if (!indices.has(next)) {
        connect(next);
        lowlinks.set(node, Math.min(lowlinks.get(node), lowlinks.get(next)));
      } else if (onStack.has(next)) {
        lowlinks.set(node, Math.min(lowlinks.get(node), indices.get(next)));
      }
    }
    if (lowlinks.get(node) !== indices.get(node)) return;
    const component = [];
    let member;
    do {
      member = stack.pop();
      onStack.delete(member);
      component.push(member);
    } while (member !== node);
    if (component.length > 1) problems.push(`import cycle: ${component.map(shown).join(' ↔ ')}`);
  };
  for (const file of modules.keys()) if (!indices.has(file)) connect(file);
  return problems;
}

function fail(problems) {
  for (const problem of problems) console.error(problem);
  process.exit(1);
}

// ---- main ----

const tables = readTables(readFileSync(architecture, 'utf8'));
const modules = new Map(listModules(root).map((file) => [file, readModule(file)]));
const problems = [
  ...checkLayers(modules, layerRanks(requireTable(tables, 'folder'))),
  ...checkComputedImports(modules),
  ...checkCycles(modules),
  ...checkPlacement(modules, placementRules(requireTable(tables, 'package or effect'))),
  ...checkShortCommands(modules, shortCommandRules(requireTable(tables, 'short command'))),
  ...checkTimeAndChance(modules, effectRules(requireTable(tables, 'timer, clock or random'))),
];
if (problems.length > 0) fail(problems);
console.log(
  `${modules.size} modules: no import cycles; every import, static or dynamic, points down the layers; ` +
    `every package, effect, timer, clock and random value where ${shown(architecture)} places it`,
);
