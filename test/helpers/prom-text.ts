/**
 * A strict reader of Prometheus's text exposition format (version 0.0.4), for tests: every line
 * must be a HELP, a TYPE, another comment, a blank line or a sample, and what a scraper relies on
 * is checked, so that a test fails on text Prometheus would refuse or misread:
 * - names and label names match the format's patterns; label values use only its escapes;
 * - each family has at most one HELP and one TYPE, given before its samples, and its samples are
 *   together (a family does not come back after another one);
 * - a series (name and labels) appears once;
 * - a counter's samples are not negative; a histogram has `_bucket` samples with `le`, a `_sum`
 *   and a `_count`, per label set: buckets ascending and cumulative, the `+Inf` one equal to the count.
 */

export type MetricType = 'counter' | 'gauge' | 'histogram' | 'summary' | 'untyped';

export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

export interface MetricFamily {
  name: string;
  help: string | null;
  type: MetricType;
  samples: Sample[];
}

export type Exposition = Map<string, MetricFamily>;

const NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*$/;
const TYPES: readonly string[] = ['counter', 'gauge', 'histogram', 'summary', 'untyped'];

export class PromTextError extends Error {
  constructor(
    readonly line: number,
    message: string,
  ) {
    super(`line ${line}: ${message}`);
    this.name = 'PromTextError';
  }
}

/** Parses and checks `text`; throws PromTextError at the first thing the format does not allow. */
export function parsePromText(text: string): Exposition {
  const families: Exposition = new Map();
  const seenSeries = new Set<string>();
  let current: MetricFamily | null = null;
  const closed = new Set<string>();
  // Families with a TYPE line (a TYPE of `untyped` is still one).
  const typed = new Set<string>();
  const familyFor = (name: string, line: number): MetricFamily => {
    if (current !== null && current.name === name) return current;
    if (closed.has(name) || families.has(name))
      throw new PromTextError(line, `${name} comes back after other families`);
    if (current !== null) closed.add(current.name);
    current = { name, help: null, type: 'untyped', samples: [] };
    families.set(name, current);
    return current;
  };
  if (text !== '' && !text.endsWith('\n')) throw new PromTextError(0, 'the text does not end with a newline');
  const lines = text.split('\n');
  lines.pop();
  lines.forEach((raw, index) => {
    const line = index + 1;
    if (raw.trim() === '') return;
    if (raw.startsWith('#')) {
      const meta = /^# (HELP|TYPE) (\S+)(?: (.*))?$/.exec(raw);
      if (meta === null) return; // another comment
      const [, kind, name = '', rest = ''] = meta;
      if (!NAME.test(name)) throw new PromTextError(line, `bad metric name ${name}`);
      const family = familyFor(name, line);
      if (kind === 'HELP') {
        if (family.help !== null) throw new PromTextError(line, `a second HELP for ${name}`);
        family.help = unescapeHelp(rest, line);
      } else {
        if (family.samples.length > 0) throw new PromTextError(line, `TYPE of ${name} after its samples`);
        if (!TYPES.includes(rest)) throw new PromTextError(line, `unknown type ${rest} for ${name}`);
        if (typed.has(name)) throw new PromTextError(line, `a second TYPE for ${name}`);
        typed.add(name);
        family.type = rest as MetricType;
      }
      return;
    }
    const sample = parseSample(raw, line);
    const family = familyFor(familyName(sample.name, current), line);
    checkSampleName(family, sample, line);
    const key = `${sample.name}${JSON.stringify(Object.entries(sample.labels).sort())}`;
    if (seenSeries.has(key)) throw new PromTextError(line, `the series ${key} appears twice`);
    seenSeries.add(key);
    if (family.type === 'counter' && !(sample.value >= 0))
      throw new PromTextError(line, `counter ${sample.name} is ${sample.value}`);
    family.samples.push(sample);
  });
  for (const family of families.values()) if (family.type === 'histogram') checkHistogram(family);
  return families;
}

/** A histogram's or summary's samples carry suffixes; they belong to the family being read. */
function familyName(sampleName: string, current: MetricFamily | null): string {
  if (current !== null && (current.type === 'histogram' || current.type === 'summary')) {
    for (const suffix of ['_bucket', '_sum', '_count']) if (sampleName === current.name + suffix) return current.name;
  }
  return sampleName;
}

function checkSampleName(family: MetricFamily, sample: Sample, line: number): void {
  if (family.type === 'histogram') {
    if (sample.name === family.name)
      throw new PromTextError(line, `histogram ${family.name} has a sample without suffix`);
    if (sample.name.endsWith('_bucket') && sample.labels.le === undefined)
      throw new PromTextError(line, `bucket of ${family.name} without le`);
  } else if (family.type !== 'summary' && sample.name !== family.name) {
    throw new PromTextError(line, `sample ${sample.name} in family ${family.name}`);
  }
}

function parseSample(raw: string, line: number): Sample {
  const head = /^([a-zA-Z_:][a-zA-Z0-9_:]*)/.exec(raw);
  if (head === null) throw new PromTextError(line, `not a sample: ${raw}`);
  const name = head[1] as string;
  let at = name.length;
  const labels: Record<string, string> = {};
  if (raw[at] === '{') {
    at += 1;
    for (;;) {
      if (raw[at] === '}') {
        at += 1;
        break;
      }
      const labelHead = /^([a-zA-Z_][a-zA-Z0-9_]*)="/.exec(raw.slice(at));
      if (labelHead === null) throw new PromTextError(line, `bad label at column ${at + 1}: ${raw}`);
      const labelName = labelHead[1] as string;
      if (!LABEL_NAME.test(labelName) || labelName.startsWith('__'))
        throw new PromTextError(line, `bad label name ${labelName}`);
      if (labelName in labels) throw new PromTextError(line, `label ${labelName} twice`);
      at += labelHead[0].length;
      let value = '';
      for (;;) {
        const char = raw[at];
        if (char === undefined) throw new PromTextError(line, `unterminated label value: ${raw}`);
        at += 1;
        if (char === '"') break;
        if (char === '\\') {
          const escaped = raw[at];
          at += 1;
          if (escaped === '\\') value += '\\';
          else if (escaped === '"') value += '"';
          else if (escaped === 'n') value += '\n';
          else throw new PromTextError(line, `bad escape \\${escaped ?? ''} in a label value`);
        } else value += char;
      }
      labels[labelName] = value;
      if (raw[at] === ',') at += 1;
      else if (raw[at] !== '}') throw new PromTextError(line, `expected , or } at column ${at + 1}: ${raw}`);
    }
  }
  const rest = raw.slice(at);
  const tail = /^ (\S+)(?: (-?\d+))?$/.exec(rest);
  if (tail === null) throw new PromTextError(line, `bad value part "${rest}"`);
  return { name, labels, value: parseValue(tail[1] as string, line) };
}

function parseValue(text: string, line: number): number {
  if (text === '+Inf') return Number.POSITIVE_INFINITY;
  if (text === '-Inf') return Number.NEGATIVE_INFINITY;
  if (text === 'NaN') return Number.NaN;
  if (!/^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(text)) throw new PromTextError(line, `bad value ${text}`);
  return Number(text);
}

function unescapeHelp(text: string, line: number): string {
  return text.replace(/\\(.?)/g, (_, escaped: string) => {
    if (escaped === '\\') return '\\';
    if (escaped === 'n') return '\n';
    throw new PromTextError(line, `bad escape \\${escaped} in HELP`);
  });
}

function checkHistogram(family: MetricFamily): void {
  const groups = new Map<string, { buckets: [number, number][]; sum?: number; count?: number }>();
  for (const sample of family.samples) {
    const { le, ...rest } = sample.labels;
    const key = JSON.stringify(Object.entries(rest).sort());
    const group = groups.get(key) ?? { buckets: [] };
    groups.set(key, group);
    if (sample.name.endsWith('_bucket')) group.buckets.push([parseValue(le ?? '', 0), sample.value]);
    else if (sample.name.endsWith('_sum')) group.sum = sample.value;
    else group.count = sample.value;
  }
  for (const [key, group] of groups) {
    const where = `${family.name}${key}`;
    if (group.sum === undefined || group.count === undefined)
      throw new PromTextError(0, `${where} lacks _sum or _count`);
    for (let i = 1; i < group.buckets.length; i += 1) {
      const [le, value] = group.buckets[i] as [number, number];
      const [lePrev, valuePrev] = group.buckets[i - 1] as [number, number];
      if (!(le > lePrev)) throw new PromTextError(0, `${where}: buckets not in ascending le`);
      if (value < valuePrev) throw new PromTextError(0, `${where}: buckets not cumulative`);
    }
    const last = group.buckets.at(-1);
    if (last === undefined || last[0] !== Number.POSITIVE_INFINITY)
      throw new PromTextError(0, `${where}: no +Inf bucket`);
    if (last[1] !== group.count) throw new PromTextError(0, `${where}: +Inf bucket ${last[1]} ≠ count ${group.count}`);
  }
}

/** The samples named `name` whose labels include `labels`. */
export function samplesOf(exposition: Exposition, name: string, labels: Record<string, string> = {}): Sample[] {
  const family = exposition.get(name) ??
    exposition.get(name.replace(/_(bucket|sum|count)$/, '')) ?? { samples: [] as Sample[] };
  return family.samples.filter(
    (sample) => sample.name === name && Object.entries(labels).every(([key, value]) => sample.labels[key] === value),
  );
}

/** The value of the one sample named `name` with exactly these labels; throws when there is none. */
export function valueOf(exposition: Exposition, name: string, labels: Record<string, string> = {}): number {
  const found = samplesOf(exposition, name, labels).filter(
    (sample) => Object.keys(sample.labels).length === Object.keys(labels).length,
  );
  if (found.length !== 1) throw new Error(`${found.length} samples ${name}${JSON.stringify(labels)}`);
  return (found[0] as Sample).value;
}

/** The sum over the samples named `name` whose labels include `labels` (0 when none). */
export function sumOf(exposition: Exposition, name: string, labels: Record<string, string> = {}): number {
  return samplesOf(exposition, name, labels).reduce((sum, sample) => sum + sample.value, 0);
}
