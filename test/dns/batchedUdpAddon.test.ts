// The batched UDP addon (native/udp) on its own: wrong arguments are thrown back as errors, never
// a crash; closing twice is harmless; a port another socket holds is refused to the first process
// but joined by the next (SO_REUSEPORT); a worker thread that ends with a socket open (the roles'
// thread when the service exits) leaves the process exiting normally. Fails in CI
// (REQUIRE_DNS_TOOLS=1) when the addon is not built.
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { type BatchedUdpAddon, DEFAULT_ADDON_PATH, loadBatchedUdp } from '../../nameserver/server/nativeUdp.js';

const loaded = loadBatchedUdp(DEFAULT_ADDON_PATH);

function addonOrSkip(ctx: { skip: (note: string) => void }): BatchedUdpAddon {
  if ('addon' in loaded) return loaded.addon;
  if (process.env.REQUIRE_DNS_TOOLS === '1') throw new Error(`the batched UDP addon is not built: ${loaded.error}`);
  ctx.skip(loaded.error);
  throw new Error('unreachable');
}

const receiveArrays = () =>
  [
    new Uint8Array(new ArrayBuffer(4 * 1024)),
    new Uint32Array(new ArrayBuffer(16)),
    new Uint8Array(new ArrayBuffer(4)),
    new Uint8Array(new ArrayBuffer(64)),
    new Uint16Array(new ArrayBuffer(8)),
  ] as const;

describe('the batched UDP addon', () => {
  it('throws on wrong arguments instead of crashing', (ctx) => {
    const addon = addonOrSkip(ctx);
    const [fd] = addon.open('127.0.0.1', 0, 0, true);
    const calls: (() => unknown)[] = [
      () => (addon.open as (...a: unknown[]) => unknown)(1, 2, 3, 4),
      () => addon.open('not an address', 0, 0, true),
      () => addon.open('127.0.0.1', 70_000, 0, true),
      () => (addon.send as (...a: unknown[]) => unknown)(fd, 'text', 1, [], [], []),
      () => addon.send(fd, new Uint8Array(4), 2, new Uint32Array([4, 4]), ['127.0.0.1', '127.0.0.1'], new Uint16Array([9, 9])),
      () => addon.send(fd, new Uint8Array(4), 3, new Uint32Array([1]), ['127.0.0.1'], new Uint16Array([9])),
      () => addon.close({}),
      () => (addon.receive as (...a: unknown[]) => unknown)(fd, () => {}),
      () => addon.receive(fd, () => {}, new Uint8Array(10), new Uint32Array(100), new Uint8Array(100), new Uint8Array(1600), new Uint16Array(100)),
    ];
    for (const call of calls) expect(call).toThrow();
    addon.closeFd(fd);
  });

  it('skips answers it cannot address and sends the others', (ctx) => {
    const addon = addonOrSkip(ctx);
    const [fd] = addon.open('127.0.0.1', 0, 0, true);
    const sent = addon.send(fd, new Uint8Array(12), 3, new Uint32Array([4, 4, 4]), ['127.0.0.1', '::1', 'nonsense'], new Uint16Array([9, 9, 9]));
    expect(sent).toBe(1);
    addon.closeFd(fd);
  });

  it('refuses a taken port to the first socket, lets another join it, and closes twice harmlessly', (ctx) => {
    const addon = addonOrSkip(ctx);
    const [fd, port] = addon.open('127.0.0.1', 0, 0, true);
    expect(() => addon.open('127.0.0.1', port, 0, true)).toThrow(expect.objectContaining({ code: 'EADDRINUSE' }));
    const [joined, samePort] = addon.open('127.0.0.1', port, 0, false);
    expect(samePort).toBe(port);
    const receiver = addon.receive(fd, () => {}, ...receiveArrays());
    addon.close(receiver);
    addon.close(receiver);
    addon.closeFd(joined);
  });

  it('a worker thread ending with a socket open leaves the process to exit with its own code', (ctx) => {
    addonOrSkip(ctx);
    const worker = `
      const a = require(${JSON.stringify(DEFAULT_ADDON_PATH)});
      const [fd] = a.open('127.0.0.1', 0, 0, true);
      a.receive(fd, () => {}, new Uint8Array(new ArrayBuffer(4096)), new Uint32Array(new ArrayBuffer(16)), new Uint8Array(new ArrayBuffer(4)),
        new Uint8Array(new ArrayBuffer(64)), new Uint16Array(new ArrayBuffer(8)));
      require('node:worker_threads').parentPort.postMessage('open');`;
    const script = `new (require('node:worker_threads').Worker)(${JSON.stringify(worker)}, { eval: true }).on('message', () => process.exit(70));`;
    const run = spawnSync(process.execPath, ['-e', script], { encoding: 'utf8', timeout: 20_000 });
    expect({ status: run.status, signal: run.signal }).toEqual({ status: 70, signal: null });
  });
});
