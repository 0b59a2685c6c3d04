import { describe, expect, test } from 'vitest';
import { LiveLine } from '../../src/log/live-line.js';

describe('LiveLine', () => {
  test('log lines are written above the status line, which is drawn again after each; empty means nothing drawn', () => {
    let screen = '';
    const line = new LiveLine({ write: (text: string) => (screen += text) }, () => 40);
    line.writeAbove('first\n');
    line.set('▶ a 1/5 US-001 3s');
    line.writeAbove('second\n');
    line.set('▶ a 1/5 US-001 3s');
    line.set('▶ a 2/5 US-002 0s and a tail long enough to be cut at the width');
    line.clear();
    expect(screen).toBe(
      'first\n' +
        '\r\u001b[K▶ a 1/5 US-001 3s' +
        '\r\u001b[Ksecond\n▶ a 1/5 US-001 3s' +
        '\r\u001b[K▶ a 2/5 US-002 0s and a tail long enou…' +
        '\r\u001b[K',
    );
  });
});
