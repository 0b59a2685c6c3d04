import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import { describe, expect, test } from 'vitest';
import { PromTextError, parsePromText, sumOf, valueOf } from '../helpers/prom-text.js';

describe('the strict reader of the text format the metrics tests use', () => {
  test("reads prom-client's own output: families, types, escaped label values, histograms", async () => {
    const registry = new Registry();
    const counter = new Counter({
      name: 'x_total',
      help: 'A "counter"\\with\nlines',
      labelNames: ['who'],
      registers: [registry],
    });
    counter.inc({ who: 'say "hi"\\\n' }, 2);
    counter.inc({ who: 'plain' });
    new Gauge({ name: 'y', help: 'a gauge', registers: [registry] }).set(-1.5e-3);
    const histogram = new Histogram({ name: 'z_seconds', help: 'h', buckets: [0.1, 1], registers: [registry] });
    histogram.observe(0.05);
    histogram.observe(5);
    const parsed = parsePromText(await registry.metrics());
    expect(parsed.get('x_total')).toMatchObject({ type: 'counter', help: 'A "counter"\\with\nlines' });
    expect(valueOf(parsed, 'x_total', { who: 'say "hi"\\\n' })).toBe(2);
    expect(sumOf(parsed, 'x_total')).toBe(3);
    expect(valueOf(parsed, 'y')).toBe(-0.0015);
    expect(valueOf(parsed, 'z_seconds_bucket', { le: '0.1' })).toBe(1);
    expect(valueOf(parsed, 'z_seconds_bucket', { le: '+Inf' })).toBe(2);
    expect(valueOf(parsed, 'z_seconds_count')).toBe(2);
    expect(valueOf(parsed, 'z_seconds_sum')).toBe(5.05);
  });

  test.each([
    ['no newline at the end', 'a 1'],
    ['a sample that is not one', 'a-b 1\n'],
    ['a value that is not a number', 'a one\n'],
    ['two spaces before the value', 'a  1\n'],
    ['an unterminated label value', 'a{x="1} 1\n'],
    ['an escape the format lacks', 'a{x="\\t"} 1\n'],
    ['a label twice', 'a{x="1",x="2"} 1\n'],
    ['a reserved label name', 'a{__name__="b"} 1\n'],
    ['a series twice', 'a{x="1"} 1\na{x="1"} 2\n'],
    ['a family that comes back', 'a 1\nb 1\na{x="1"} 1\n'],
    ['TYPE after samples', 'a 1\n# TYPE a gauge\n'],
    ['two TYPEs', '# TYPE a gauge\n# TYPE a gauge\na 1\n'],
    ['two HELPs', '# HELP a x\n# HELP a y\na 1\n'],
    ['an unknown type', '# TYPE a meter\na 1\n'],
    ['a negative counter', '# TYPE a_total counter\na_total -1\n'],
    ['a histogram sample without its suffix', '# TYPE h histogram\nh 1\n'],
    ['a histogram without +Inf', '# TYPE h histogram\nh_bucket{le="1"} 1\nh_sum 1\nh_count 1\n'],
    [
      'a histogram not cumulative',
      '# TYPE h histogram\nh_bucket{le="1"} 2\nh_bucket{le="+Inf"} 1\nh_sum 1\nh_count 1\n',
    ],
    ['a histogram whose +Inf is not its count', '# TYPE h histogram\nh_bucket{le="+Inf"} 2\nh_sum 1\nh_count 1\n'],
    ['a bucket without le', '# TYPE h histogram\nh_bucket 1\nh_sum 1\nh_count 1\n'],
  ])('refuses %s', (_, text) => {
    expect(() => parsePromText(text)).toThrow(PromTextError);
  });

  test('accepts blank lines, other comments, timestamps, NaN and infinities, a trailing comma in labels', () => {
    const parsed = parsePromText('# a comment\n\n# TYPE a gauge\na{x="1",} NaN 1700000000000\na{x="2"} -Inf\nb +Inf\n');
    expect(Number.isNaN(valueOf(parsed, 'a', { x: '1' }))).toBe(true);
    expect(valueOf(parsed, 'a', { x: '2' })).toBe(Number.NEGATIVE_INFINITY);
    expect(parsed.get('b')?.type).toBe('untyped');
  });
});
