import { benchApi, createLiveZone, liftRateLimits, startBenchService } from './bench/lib/benchService.js';
import { TcpExchanger, tsigKey, txtAddUpdate } from './bench/lib/dnsUpdate.js';
import { parseMessage } from './nameserver/wire/parseMessage.js';
import { verifyTsig } from './nameserver/wire/tsig.js';
import { execFileSync } from 'node:child_process';
const service = await startBenchService();
try {
  await liftRateLimits(service);
  const api = benchApi(service.base, service.tokens.customers[0]);
  await createLiveZone(api, 'dbg.test');
  const k = await api('POST', '/tsig-keys', { name: 'c0.dbg.test', algorithm: 'hmac-sha256' });
  console.log(k);
  const key = tsigKey(k);
  const { message, mac } = txtAddUpdate(5, 'dbg.test', 'x.bench.dbg.test', 'hello', key);
  const ex = new TcpExchanger(service.dnsPort);
  const ans = await ex.exchange(message);
  const p = parseMessage(ans)!;
  console.log(p.rcode, p.tsig, verifyTsig(ans, p.tsig!, new Map([[key.name, key]]), new Date(), { requestMac: mac }));
  ex.close();
  try { console.log(execFileSync('nsupdate', ['-v', '-y', `hmac-sha256:${k.name}:${k.secret}`], { input: `server 127.0.0.1 ${service.dnsPort}\nzone dbg.test\nupdate add y.bench.dbg.test 60 TXT "a"\nsend\nanswer\n` }).toString()); } catch (e: any) { console.log(e.stdout?.toString(), e.stderr?.toString()); }
} finally { await service.stop(); }
