// Background work cannot stall unseen (issue 23): a monitor polling /healthz and scraping /metrics
// sees every periodic job's last success, sees a job whose run hangs named as `stalled` (the
// service stays ready: 200), and sees it recover once its runs succeed again. The hanging job is a
// real PeriodicJob in the service's thread, waiting on a real receiver that accepts and never answers.
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createLogger } from '../../src/observability/logger.js';
import { PeriodicJob } from '../../src/jobs/periodicJob.js';
import type { ApiClient } from '../helpers/apiClient.js';
import { startTestService, type TestService } from '../helpers/testService.js';
import { eventually } from '../helpers/webhookReceiver.js';

let lab: TestService;
let anon: ApiClient;

beforeAll(async () => {
  lab = await startTestService({ env: { WEBHOOK_POLL_INTERVAL_MS: '50' } });
  anon = lab.as('');
});
afterAll(() => lab?.stop());

const metric = (text: string, name: string, labels: string) => {
  const line = text.split('\n').find((l) => l.startsWith(`${name}{${labels}}`));
  return line === undefined ? undefined : Number(line.split(' ').pop());
};

it('names every job in /healthz, with its last success in /metrics', async () => {
  const text = await eventually(
    async () => {
      const res = await anon.get('/metrics');
      return metric(res.text, 'job_last_success_timestamp_seconds', 'job="webhook deliveries"') ? res.text : undefined;
    },
    10_000,
    'the webhook worker’s first successful run',
  );
  expect(metric(text, 'job_last_success_timestamp_seconds', 'job="webhook deliveries"')).toBeGreaterThan(Date.now() / 1000 - 60);
  expect(metric(text, 'job_degraded', 'job="webhook deliveries"')).toBe(0);
  const health = await anon.get('/healthz');
  expect(health.status).toBe(200);
  expect(health.body.status).toBe('ok');
  expect(health.body.jobs).toMatchObject({ 'webhook deliveries': 'ok', 'publication poll': 'ok', maintenance: 'ok', dnssec: 'ok' });
  expect(health.body).not.toHaveProperty('degraded');
});

it('shows a job whose run hangs as stalled (200, degraded, named), and ok again once a run succeeds', async () => {
  // Accepts every connection, answers only once told to.
  let answering = false;
  const sockets = new Set<net.Socket>();
  const receiver = net.createServer((socket) => {
    sockets.add(socket);
    socket.on('error', () => {});
    socket.once('data', () => {
      if (answering) socket.end('HTTP/1.1 200 OK\r\ncontent-length: 0\r\nconnection: close\r\n\r\n');
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/`;
  let runs = 0;
  const job = new PeriodicJob({
    name: 'receiver check',
    intervalMs: 100,
    runBoundMs: 500,
    logger: createLogger('silent'),
    // No signal passed on: a run that ignores it must still be abandoned.
    run: async () => {
      runs++;
      const res = await fetch(url, { method: 'POST', body: 'x' });
      await res.arrayBuffer();
    },
  });
  job.start();
  try {
    const stalled = await eventually(
      async () => {
        const res = await anon.get('/healthz');
        return res.body.jobs?.['receiver check'] === 'stalled' ? res : undefined;
      },
      10_000,
      'the hanging job shown stalled',
    );
    expect(stalled.status).toBe(200);
    expect(stalled.body).toMatchObject({ status: 'degraded', degraded: ['receiver check'], checks: { database: 'ok' } });
    // The loop went on: runs after the abandoned one started.
    await eventually(() => runs >= 2, 5000, 'a run after the abandoned one');
    const text = (await anon.get('/metrics')).text;
    expect(metric(text, 'job_degraded', 'job="receiver check"')).toBe(1);
    expect(metric(text, 'job_runs_total', 'job="receiver check",outcome="overrun"')).toBeGreaterThanOrEqual(1);
    expect(metric(text, 'job_last_success_timestamp_seconds', 'job="receiver check"')).toBeUndefined();

    answering = true;
    const recovered = await eventually(
      async () => {
        const res = await anon.get('/healthz');
        return res.body.jobs?.['receiver check'] === 'ok' ? res : undefined;
      },
      10_000,
      'the job ok again',
    );
    expect(recovered.body.status).toBe('ok');
    expect(recovered.body).not.toHaveProperty('degraded');
    expect(metric((await anon.get('/metrics')).text, 'job_last_success_timestamp_seconds', 'job="receiver check"')).toBeGreaterThan(Date.now() / 1000 - 60);
  } finally {
    await job.stop();
    for (const s of sockets) s.destroy();
    await new Promise((resolve) => receiver.close(resolve));
  }
});
