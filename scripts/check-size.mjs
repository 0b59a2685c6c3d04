#!/usr/bin/env node
// Holds the size of the source: a module of src/ has at most MAX_FILE_LINES lines and a function at
// most MAX_FUNCTION_LINES, except for what scripts/size-allowlist.json grandfathers, each entry at the
// size it had when it was listed. The allow-list only shrinks: an entry fails when its file or
// function grows past its recorded size, and when it is no longer over the limit (or no longer
// exists), so that it is removed once the code is cut. docs/architecture.md, Conventions, explains it.
//   node scripts/check-size.mjs [src] [scripts/size-allowlist.json]
// Lines are counted as `wc -l` counts them: every line, blank lines and comments included (a reader
// scrolls past those too, and the count anyone checks with wc -l is the one the check uses).
// A function's lines run from its first token to its closing brace; a nested function counts inside
// the one around it and on its own.
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join, relative, resolve, sep } from 'node:path';
import ts from 'typescript';

export const MAX_FILE_LINES = 300;
export const MAX_FUNCTION_LINES = 80;

const root = resolve(process.argv[2] ?? 'src');
const allowListFile = resolve(process.argv[3] ?? 'scripts/size-allowlist.json');
const shown = (path) => relative(process.cwd(), path);

function listModules(dir, into = []) {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) listModules(path, into);
    else if (path.endsWith('.ts')) into.push(path);
  }
  return into;
}

/** `wc -l`: the number of line feeds. */
const lineCount = (text) => text.split('\n').length - 1;

/**
 * Each function of a module with its name and its lines. Names read as a person would look the
 * function up: `runIteration`, `TaskLoop.loop`, `TaskLoop.constructor`, `startDaemon > arrow at 120`
 * for an unnamed one (its enclosing function's name and its line).
 */
function functionsOf(file, text) {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const lineOf = (position) => source.getLineAndCharacterOfPosition(position).line + 1;
  const found = [];
  const visit = (node, outer) => {
    let inner = outer;
    if (ts.isFunctionLike(node) && 'body' in node && node.body !== undefined) {
      const start = lineOf(node.getStart(source));
      const name = nameOf(node, outer, start);
      found.push({ name, line: start, lines: lineOf(node.end) - start + 1 });
      inner = name;
    }
    ts.forEachChild(node, (child) => visit(child, inner));
  };
  visit(source, undefined);
  return found;
}

function nameOf(node, outer, line) {
  const own = node.name !== undefined && !ts.isComputedPropertyName(node.name) ? node.name.getText() : undefined;
  const holder = (ts.isClassLike(node.parent) || ts.isObjectLiteralExpression(node.parent)) && ownerName(node.parent);
  if (ts.isConstructorDeclaration(node)) return `${holder || 'class'}.constructor`;
  if (own !== undefined && (ts.isMethodDeclaration(node) || ts.isAccessor(node)))
    return holder ? `${holder}.${own}` : own;
  if (own !== undefined) return own;
  const parent = node.parent;
  if (ts.isVariableDeclaration(parent) && ts.isIdentifier(parent.name)) return parent.name.text;
  if (
    (ts.isPropertyAssignment(parent) || ts.isPropertyDeclaration(parent)) &&
    !ts.isComputedPropertyName(parent.name)
  ) {
    const objectName = ownerName(parent.parent);
    return objectName ? `${objectName}.${parent.name.getText()}` : parent.name.getText();
  }
  const kind = ts.isArrowFunction(node) ? 'arrow' : 'function';
  return outer === undefined ? `${kind} at ${line}` : `${outer} > ${kind} at ${line}`;
}

/** The name of a class, or of the variable an object literal is assigned to. */
function ownerName(node) {
  if (ts.isClassLike(node)) return node.name?.text;
  if (
    ts.isObjectLiteralExpression(node) &&
    ts.isVariableDeclaration(node.parent) &&
    ts.isIdentifier(node.parent.name)
  ) {
    return node.parent.name.text;
  }
  return undefined;
}

function readAllowList() {
  let list;
  try {
    list = JSON.parse(readFileSync(allowListFile, 'utf8'));
  } catch (error) {
    console.error(
      `${shown(allowListFile)}: cannot be read as JSON (${error.message}); the size check reads its allow-list there`,
    );
    process.exit(1);
  }
  return { files: list.files ?? {}, functions: list.functions ?? {} };
}

// ---- main ----

const allowed = readAllowList();
const problems = [];
const notes = [];
const listName = shown(allowListFile);
const seenFiles = new Set();
const seenFunctions = new Set();

for (const file of listModules(root).sort()) {
  const path = relative(root, file).split(sep).join('/');
  const text = readFileSync(file, 'utf8');
  const lines = lineCount(text);
  const recorded = allowed.files[path];
  seenFiles.add(path);
  if (recorded === undefined && lines > MAX_FILE_LINES) {
    problems.push(
      `${shown(file)}: ${lines} lines, over the limit of ${MAX_FILE_LINES} lines a source file may have: split it by concept (docs/architecture.md, Conventions)`,
    );
  } else if (recorded !== undefined) {
    problems.push(...judgeEntry(`${shown(file)}`, 'lines', lines, recorded, MAX_FILE_LINES, `"${path}"`));
  }
  const recordedFunctions = allowed.functions[path] ?? {};
  for (const { name, line, lines: size } of functionsOf(file, text)) {
    const key = `${path} ${name}`;
    const entry = recordedFunctions[name];
    seenFunctions.add(key);
    if (entry === undefined && size > MAX_FUNCTION_LINES) {
      problems.push(
        `${shown(file)}:${line} function ${name} has ${size} lines, over the limit of ${MAX_FUNCTION_LINES} lines a function may have: cut it into named steps`,
      );
    } else if (entry !== undefined) {
      problems.push(
        ...judgeEntry(`${shown(file)}:${line} function ${name}`, 'lines', size, entry, MAX_FUNCTION_LINES, `"${name}"`),
      );
    }
  }
}
for (const path of Object.keys(allowed.files)) {
  if (!seenFiles.has(path)) {
    problems.push(
      `${listName} lists ${path}, which is gone from ${shown(root)}: remove its entry (the list only shrinks)`,
    );
  }
}
for (const [path, names] of Object.entries(allowed.functions)) {
  for (const name of Object.keys(names)) {
    if (!seenFunctions.has(`${path} ${name}`)) {
      problems.push(
        `${listName} lists function ${name} of ${path}, which is gone: remove its entry (the list only shrinks)`,
      );
    }
  }
}

/** What an allow-listed file or function's size says: grown past its entry, or no longer over the limit. */
function judgeEntry(what, unit, size, recorded, limit, key) {
  if (size > recorded) {
    return [
      `${what}: ${size} ${unit}, grown past the ${recorded} ${listName} allows it (the limit is ${limit}): cut it back rather than raising its entry`,
    ];
  }
  if (size <= limit) {
    return [
      `${what}: ${size} ${unit}, within the limit of ${limit} now: remove its entry ${key} from ${listName} (the list only shrinks)`,
    ];
  }
  if (size < recorded) notes.push(`${what}: ${size} ${unit}, down from ${recorded}: lower its entry in ${listName}`);
  return [];
}

for (const note of notes) console.log(note);
if (problems.length > 0) {
  for (const problem of problems) console.error(problem);
  process.exit(1);
}
console.log(
  `${seenFiles.size} modules: every file within ${MAX_FILE_LINES} lines and every function within ${MAX_FUNCTION_LINES}, ` +
    `but for the ${Object.keys(allowed.files).length} files and ` +
    `${Object.values(allowed.functions).reduce((sum, names) => sum + Object.keys(names).length, 0)} functions ${listName} holds at their size`,
);
