import { createHmac } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import { createServer as createNetServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { runCli } from '../helpers/child.js';
import { DaemonProcess, drainedAfterEach } from '../helpers/daemon.js';
import { tempDir } from '../helpers/temp-dir.js';
import { makeVault } from '../helpers/vault.js';
import { waitFor } from '../helpers/wait.js';

const SECRET = 'whsec-test-8c1d';

interface Received {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
  doc: { id: string; event: string; task: { id: string; file: string; title: string } | null; [key: string]: unknown };
}

/** A webhook receiver on 127.0.0.1 that answers 500 to its first `failFirst` requests, then 200, and keeps every one. */
class Receiver {
  readonly got: Received[] = [];
  private constructor(
    private readonly server: Server,
    readonly port: number,
  ) {}

  static async start(failFirst: number, port = 0, shared: Received[] = []): Promise<Receiver> {
    let count = 0;
    const server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        count += 1;
        const status = count <= failFirst ? 500 : 200;
        const body = Buffer.concat(chunks).toString('utf8');
        shared.push({ status, headers: req.headers, body, doc: JSON.parse(body) as Received['doc'] });
        res.writeHead(status).end();
      });
    });
    await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
    const receiver = new Receiver(server, (server.address() as AddressInfo).port);
    (receiver as { got: Received[] }).got = shared;
    receivers.push(receiver);
    return receiver;
  }

  delivered(event: string, task: string): Received | undefined {
    return this.got.find((r) => r.status === 200 && r.doc.event === event && r.doc.task?.id === task);
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

const receivers: Receiver[] = [];
afterEach(async () => {
  for (const receiver of receivers.splice(0)) await receiver.close().catch(() => undefined);
});
const daemons = drainedAfterEach();

/** Signed both ways: X-Wiggum-Signature over the body, and Standard Webhooks over id.timestamp.body. */
const signed = (r: Received): boolean => {
  const id = String(r.headers['webhook-id']);
  const timestamp = String(r.headers['webhook-timestamp']);
  const standard = createHmac('sha256', SECRET).update(`${id}.${timestamp}.${r.body}`).digest('base64');
  return (
    r.headers['x-wiggum-signature'] === `sha256=${createHmac('sha256', SECRET).update(r.body).digest('hex')}` &&
    /^\d{9,11}$/.test(timestamp) &&
    r.headers['webhook-signature'] === `v1,${standard}`
  );
};

async function freePort(): Promise<number> {
  const server = createNetServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** A command notifier: a script that keeps each JSON document it reads on stdin as a file in `dir`. */
function noteScript(dir: string): string {
  mkdirSync(dir, { recursive: true });
  const script = join(dir, '..', 'notify-me.sh');
  writeFileSync(script, `#!/bin/sh\nf="${dir}/$WIGGUM_EVENT_ID.$$"\ncat > "$f.tmp" && mv "$f.tmp" "$f.json"\n`);
  chmodSync(script, 0o755);
  return script;
}

function notes(dir: string): Received['doc'][] {
  return readdirSync(dir)
    .filter((name) => name.endsWith('.json'))
    .map((name) => JSON.parse(readFileSync(join(dir, name), 'utf8')) as Received['doc']);
}

const fastRetry = { base_delay: '100ms', max_delay: '400ms' };

describe('notifications from the real daemon', () => {
  test('a webhook that fails the first two deliveries gets every event again, signed, under the same id; a command gets the JSON on stdin; a dead one is said in status and on the Dashboard, redacted', async () => {
    const hook = await Receiver.start(2);
    const dead = await freePort();
    const noteDir = join(tempDir('wiggum-notes-'), 'notes');
    const vault = await makeVault({
      fake: { FAKE_COMPLETE_AFTER: '1' },
      config: {
        harnesses: {
          never: {
            kind: 'command',
            command: join(import.meta.dirname, '..', 'fixtures', 'agents', 'fake-agent.mjs'),
            env: { FAKE_COMPLETE_AFTER: '99' },
          },
        },
        notify: [
          {
            kind: 'webhook',
            url: `http://127.0.0.1:${hook.port}/hooks/tok-PATHSECRET?key=QSECRET`,
            secret_env: 'TEST_HOOK_SECRET',
            events: ['done', 'rejected'],
            retry: fastRetry,
          },
          {
            kind: 'webhook',
            url: `http://127.0.0.1:${dead}/dead/tok-PATHSECRET`,
            secret_env: 'TEST_HOOK_SECRET',
            events: ['done'],
            retry: fastRetry,
          },
          { kind: 'command', command: noteScript(noteDir), events: ['done', 'rejected', 'daemon'] },
        ],
      },
    });
    const daemon = DaemonProcess.start(vault.root, [], { TEST_HOOK_SECRET: SECRET });
    daemons.push(daemon);
    await daemon.ready();
    vault.task('w1', '---\ntitle: The first one\n---\nDo it.\n');
    vault.task('r1', '---\ntitle: Never done\nharness: never\nmax_iterations: 1\n---\nDo it.\n');

    await waitFor(
      () => hook.delivered('done', 'w1') !== undefined && hook.delivered('rejected', 'r1') !== undefined,
      'both events delivered',
      60_000,
    );
    // Every request signed; the two failures came again with their id; one id per event.
    expect(hook.got.every(signed)).toBe(true);
    const failed = hook.got.filter((r) => r.status === 500);
    expect(failed).toHaveLength(2);
    for (const f of failed) {
      const again = hook.got.filter((r) => r !== f && r.headers['webhook-id'] === f.headers['webhook-id']);
      expect(again.some((r) => r.status === 200 && r.doc.id === f.doc.id && r.body === f.body)).toBe(true);
      // Signed again on each attempt: a later attempt never has an older timestamp.
      for (const r of again.filter((later) => hook.got.indexOf(later) > hook.got.indexOf(f)))
        expect(Number(r.headers['webhook-timestamp'])).toBeGreaterThanOrEqual(Number(f.headers['webhook-timestamp']));
    }
    expect(hook.got.every((r) => r.headers['webhook-id'] === r.doc.id)).toBe(true);
    expect(new Set(hook.got.map((r) => r.doc.id)).size).toBe(2);
    expect(hook.delivered('done', 'w1')?.doc).toMatchObject({
      event: 'done',
      task: { id: 'w1', file: 'Done/w1.md', title: 'The first one' },
      iterations: 1,
    });
    expect(hook.delivered('rejected', 'r1')?.doc).toMatchObject({ event: 'rejected', task: { id: 'r1' } });
    expect(hook.delivered('rejected', 'r1')?.doc.reason).toEqual(expect.any(String));

    await waitFor(
      () => notes(noteDir).some((d) => d.event === 'done' && d.task?.id === 'w1'),
      'the command notifier',
      30_000,
    );
    expect(
      notes(noteDir).some((d) => d.event === 'daemon' && (d.daemon as { state: string }).state === 'started'),
    ).toBe(true);

    // The dead webhook: failing, in the log, status and the Dashboard, never with its path.
    const label = `webhook http://127.0.0.1:${dead}/…`;
    await daemon.waitForEvent('notify.failing', { notifier: label });
    await waitFor(() => {
      const page = existsSync(join(vault.root, 'Dashboard.md'))
        ? readFileSync(join(vault.root, 'Dashboard.md'), 'utf8')
        : '';
      return page.includes(`- ${label} (done): FAILING`);
    }, 'the Dashboard to name the failing notifier');
    const status = await runCli(['status', '--vault', vault.root]);
    expect(status.stdout).toMatch(
      new RegExp(
        `notifiers:\\n(.*\\n)*  ${label.replace(/[.*?()/]/g, '\\$&')} \\(done\\): FAILING, \\d+ attempts in a row failed; last error: connection refused`,
      ),
    );
    const json = JSON.parse((await runCli(['status', '--json', '--vault', vault.root])).stdout) as {
      notifiers?: { label: string; failing: boolean }[];
    };
    expect(json.notifiers?.find((n) => n.label === label)?.failing).toBe(true);
    const everything = [daemon.rawStdout, status.stdout, readFileSync(join(vault.root, 'Dashboard.md'), 'utf8')].join(
      '\n',
    );
    expect(everything).not.toMatch(/PATHSECRET|QSECRET/);

    expect((await daemon.drain()).code).toBe(0);
    await waitFor(
      () => notes(noteDir).some((d) => d.event === 'daemon' && (d.daemon as { state: string }).state === 'stopped'),
      'the stopped event',
      10_000,
    );
  }, 120_000);

  test('a daemon killed (kill -9) with a delivery pending delivers it after its restart, signed, under the same id', async () => {
    const got: Received[] = [];
    const first = await Receiver.start(0, 0, got);
    const port = first.port;
    await first.close();
    const vault = await makeVault({
      fake: { FAKE_COMPLETE_AFTER: '1' },
      config: {
        notify: [
          {
            kind: 'webhook',
            url: `http://127.0.0.1:${port}/hook`,
            secret_env: 'TEST_HOOK_SECRET',
            events: ['done'],
            retry: { base_delay: '200ms', max_delay: '1s' },
          },
        ],
      },
    });
    const env = { TEST_HOOK_SECRET: SECRET };
    const daemon = DaemonProcess.start(vault.root, [], env);
    daemons.push(daemon);
    await daemon.ready();
    vault.task('w2', '---\ntitle: Pending\n---\nDo it.\n');
    // The task ends at once, whatever the webhook does.
    await daemon.waitForEvent('task.done', { taskId: 'w2' });
    await daemon.waitForEvent('notify.failed');
    const outbox = join(vault.layout.state, 'outbox');
    const pending = readdirSync(outbox).filter((name) => name.endsWith('.json'));
    expect(pending).toHaveLength(1);
    const kept = JSON.parse(readFileSync(join(outbox, pending[0]!), 'utf8')) as { id: string };
    daemon.kill('SIGKILL');
    await daemon.exited;

    await Receiver.start(0, port, got);
    const again = DaemonProcess.start(vault.root, [], env);
    daemons.push(again);
    await again.waitForEvent('notify.pending', { pending: 1 });
    await again.waitForEvent('notify.delivered', { eventId: kept.id });
    const delivered = got.find((r) => r.status === 200);
    expect(delivered?.doc).toMatchObject({ id: kept.id, event: 'done', task: { id: 'w2' } });
    expect(delivered !== undefined && signed(delivered)).toBe(true);
    await waitFor(
      () => readdirSync(outbox).filter((name) => name.endsWith('.json')).length === 0,
      'the outbox emptied',
    );
  }, 120_000);
});
