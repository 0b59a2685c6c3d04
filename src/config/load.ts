import { readFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import type { Document } from 'yaml';
import { WiggumError, systemErrorCode } from '../errors.js';
import { fileProblem, formatProblem, positionOf } from '../problem.js';
import type { Problem } from '../problem.js';
import { offsetOfPath } from '../yaml/locate.js';
import { parseSafeYaml } from '../yaml/safe-yaml.js';
import { compileConfig } from './config.js';
import { mergeLayers, unknownDefaultHarness } from './layers.js';
import { DEFAULT_CONFIG_FILE, resolvePath } from './sources.js';
import type { ConfigSources } from './sources.js';
import type { WiggumConfig } from './config.js';
import { rawConfigSchema } from './schema.js';

interface Layer {
  file: string;
  doc: Document.Parsed | null;
  text: string;
  data: Record<string, unknown>;
}

export type ConfigCheck = { ok: true; config: WiggumConfig } | { ok: false; problems: Problem[] };

/** Loads, merges and checks the configuration; throws E_CONFIG listing every problem. */
export async function loadConfig(sources: ConfigSources = {}): Promise<WiggumConfig> {
  const checked = await checkConfig(sources);
  if (!checked.ok) {
    throw new WiggumError(
      'E_CONFIG',
      `the configuration is invalid:\n${checked.problems.map(formatProblem).join('\n')}`,
      {
        details: { problems: checked.problems },
      },
    );
  }
  return checked.config;
}

/** Like {@link loadConfig}, but returns the problems for `wiggum validate` to print. */
export async function checkConfig(sources: ConfigSources = {}): Promise<ConfigCheck> {
  const problems: Problem[] = [];
  const layers: Layer[] = [];
  const wanted: { file: string; required: boolean }[] = [{ file: DEFAULT_CONFIG_FILE, required: true }];
  if (sources.vault !== undefined)
    wanted.push({ file: join(sources.vault, '.wiggum', 'config.yaml'), required: false });
  if (sources.file !== undefined) wanted.push({ file: resolve(sources.file), required: true });

  for (const { file, required } of wanted) {
    const layer = await readLayer(file, required, problems);
    if (layer) layers.push(layer);
  }
  if (sources.overrides) layers.push({ file: '(command line)', doc: null, text: '', data: sources.overrides });
  if (problems.length > 0) return { ok: false, problems };

  const merged = mergeLayers(layers.map((layer) => layer.data));
  const parsed = rawConfigSchema.safeParse(merged);
  const unknownDefault = unknownDefaultHarness(merged);
  if (unknownDefault !== null) problems.push(locateIssue(layers, ['harness', 'default'], unknownDefault));
  if (!parsed.success) {
    problems.push(
      ...parsed.error.issues.map((issue) =>
        // Point an unknown key (a typo, usually) at the key itself, not at its parent.
        issue.code === 'unrecognized_keys'
          ? locateIssue(
              layers,
              [...issue.path, issue.keys[0] ?? ''],
              `unknown key "${issue.keys.join('", "')}" (a typo?)`,
            )
          : locateIssue(layers, issue.path, issue.message),
      ),
    );
  }
  if (!parsed.success || problems.length > 0) return { ok: false, problems };
  return {
    ok: true,
    config: compileConfig(
      parsed.data,
      layers.map((layer) => layer.file),
    ),
  };
}

async function readLayer(file: string, required: boolean, problems: Problem[]): Promise<Layer | null> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    if (systemErrorCode(error) === 'ENOENT' && !required) return null;
    problems.push(fileProblem(file, `cannot read the config file (${systemErrorCode(error) ?? String(error)})`));
    return null;
  }
  if (text.trim() === '') return { file, doc: null, text, data: {} };
  const parsed = parseSafeYaml(text);
  if (!parsed.ok) {
    for (const problem of parsed.problems)
      problems.push({ file, ...positionOf(text, problem.offset), message: problem.message });
    return null;
  }
  const data = parsed.value.data;
  resolvePaths(data, dirname(file));
  return { file, doc: parsed.value.doc, text, data };
}

/** Relative paths mean "relative to the config file that says them", so each layer is resolved alone. */
function resolvePaths(data: Record<string, unknown>, base: string): void {
  const vault = data.vault as Record<string, unknown> | undefined;
  if (vault && Array.isArray(vault.allowed_workdirs)) {
    vault.allowed_workdirs = (vault.allowed_workdirs as unknown[]).map((entry) =>
      typeof entry === 'string' ? resolvePath(entry, base) : entry,
    );
  }
  // `notify:` is a list; Object.values reads its entries as it reads the maps' ones.
  for (const section of ['harnesses', 'checks', 'notify']) {
    const entries = data[section];
    if (entries === null || typeof entries !== 'object') continue;
    for (const entry of Object.values(entries as Record<string, unknown>)) {
      if (entry === null || typeof entry !== 'object') continue;
      const command = (entry as Record<string, unknown>).command;
      // A bare name is looked up on PATH, as a shell would; anything with a slash is a path.
      if (typeof command === 'string' && (command.includes('/') || command.startsWith('~'))) {
        (entry as Record<string, unknown>).command = resolvePath(command, base);
      }
    }
  }
}

/** Points a problem at the highest-precedence file that sets the key (or its nearest parent). */
function locateIssue(layers: Layer[], path: readonly PropertyKey[], message: string): Problem {
  const key = path.map(String).join('.');
  let best: { layer: Layer; depth: number } | null = null;
  for (const layer of layers) {
    const depth = existingDepth(layer.data, path);
    if (best === null || depth >= best.depth) best = { layer, depth };
  }
  const layer = best?.layer ?? layers[0]!;
  const offset = layer.doc === null ? undefined : offsetOfPath(layer.doc, path);
  const position = offset === undefined ? { line: 1, col: 1 } : positionOf(layer.text, offset);
  return { file: layer.file, ...position, key, message: key === '' ? message : `${key}: ${message}` };
}

function existingDepth(data: unknown, path: readonly PropertyKey[]): number {
  let node = data;
  let depth = 0;
  for (const segment of path) {
    if (node === null || typeof node !== 'object' || !(String(segment) in node)) break;
    node = (node as Record<string, unknown>)[String(segment)];
    depth += 1;
  }
  return depth;
}
