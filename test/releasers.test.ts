import { describe, expect, test } from 'vitest';
import { TypedEvents } from '../src/typed-events.js';
import { Releasers } from '../src/releasers.js';

describe('Releasers', () => {
  test('releases in reverse order, each once, and goes on past a failure, reporting it', async () => {
    const done: string[] = [];
    const failures: string[] = [];
    const releasers = new Releasers(
      (name) => done.push(name),
      (error, name) => failures.push(`${name}: ${(error as Error).message}`),
    );
    const order: string[] = [];
    releasers.add('lock', () => void order.push('lock'));
    releasers.add('writer', async () => {
      await Promise.resolve();
      order.push('writer');
    });
    releasers.add('queue', () => {
      throw new Error('stuck');
    });
    releasers.add('watcher', () => void order.push('watcher'));
    await Promise.all([releasers.releaseAll(), releasers.releaseAll()]);
    await releasers.releaseAll();
    expect(order).toEqual(['watcher', 'writer', 'lock']);
    expect(done).toEqual(['watcher', 'queue', 'writer', 'lock']);
    expect(failures).toEqual(['queue: stuck']);
    expect(() => releasers.add('late', () => undefined)).toThrow(/already releasing/);
  });
});

describe('TypedEvents', () => {
  interface Map {
    tick: { n: number };
    done: { ok: boolean };
  }

  test('next() resolves with the first matching event to come; on() returns its release', async () => {
    const events = new TypedEvents<Map>();
    const seen: number[] = [];
    const release = events.on('tick', ({ n }) => seen.push(n));
    const third = events.next('tick', ({ n }) => n === 3);
    for (const n of [1, 2, 3, 4]) events.emit('tick', { n });
    expect(await third).toEqual({ n: 3 });
    release();
    events.emit('tick', { n: 5 });
    expect(seen).toEqual([1, 2, 3, 4]);
  });

  test('a throwing listener is reported and the others still hear the event', () => {
    const errors: string[] = [];
    const events = new TypedEvents<Map>((error, event) => errors.push(`${String(event)}: ${(error as Error).message}`));
    const heard: boolean[] = [];
    events.on('done', () => {
      throw new Error('observer bug');
    });
    events.on('done', ({ ok }) => heard.push(ok));
    events.emit('done', { ok: true });
    expect(heard).toEqual([true]);
    expect(errors).toEqual(['done: observer bug']);
  });

  test('next() rejects when its signal aborts, and stops listening', async () => {
    const events = new TypedEvents<Map>();
    const controller = new AbortController();
    const waiting = events.next('done', () => true, controller.signal);
    controller.abort(new Error('gave up'));
    await expect(waiting).rejects.toThrow('gave up');
    events.emit('done', { ok: true });
  });
});
