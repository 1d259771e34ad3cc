// Builds the batched UDP addon (native/udp) at install with node-gyp, which npm carries. The
// nameserver works without it (node:dgram, nameserver/server/nativeUdp.ts), so a failed build
// never fails the install: it says so in one line and exits 0.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const addonDir = path.join(path.dirname(fileURLToPath(import.meta.url)), 'udp');
const fallback = (why) => {
  console.log(`native/udp: batched UDP addon not built (${why}); the nameserver will use node:dgram`);
  process.exit(0);
};

if (process.platform !== 'linux') fallback(`recvmmsg/sendmmsg are Linux system calls, this is ${process.platform}`);

// npm names its node-gyp in scripts it runs; otherwise the one beside the npm that runs us.
const candidates = [
  process.env.npm_config_node_gyp,
  process.env.npm_execpath && path.join(path.dirname(process.env.npm_execpath), '..', 'node_modules', 'node-gyp', 'bin', 'node-gyp.js'),
  path.join(path.dirname(process.execPath), '..', 'lib', 'node_modules', 'npm', 'node_modules', 'node-gyp', 'bin', 'node-gyp.js'),
].filter(Boolean);
const nodeGyp = candidates.find((file) => existsSync(file));
if (!nodeGyp) fallback('node-gyp not found');

// Node's own headers when they are installed beside it (Debian's nodejs, the official tarball):
// no download. npm's nodedir setting, when there is one, wins.
const prefix = path.dirname(path.dirname(process.execPath));
const nodedir = process.env.npm_config_nodedir || (existsSync(path.join(prefix, 'include', 'node', 'node_api.h')) ? prefix : null);
const args = [nodeGyp, 'rebuild', ...(nodedir ? [`--nodedir=${nodedir}`] : [])];
const run = spawnSync(process.execPath, args, { cwd: addonDir, encoding: 'utf8', timeout: 300_000 });
if (run.status !== 0) {
  const tail = `${run.stdout ?? ''}${run.stderr ?? ''}`.trim().split('\n').slice(-8).join('\n');
  if (tail) console.log(tail);
  fallback(run.error ? run.error.message : `node-gyp exited with ${run.status ?? run.signal}`);
}
console.log('native/udp: batched UDP addon built (recvmmsg/sendmmsg, SO_REUSEPORT)');
