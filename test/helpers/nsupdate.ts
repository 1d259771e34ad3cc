// RFC 2136 clients nobody here wrote, as scripts drive them: BIND's nsupdate (the key as
// `-y alg:name:secret`) and Knot's knsupdate (the key as the script's `key` line); `-v` makes
// either use TCP. Shared by the nameserver's UPDATE tests and the service's.
import type { TestContext } from 'vitest';
import type { TsigAlgorithm } from '../../nameserver/wire/tsig.js';
import { requireTool, runToolAsync } from './dnsTools.js';

export type UpdateClient = 'nsupdate' | 'knsupdate';

export interface UpdateRunOptions {
  /** Sign with this key (name, algorithm, secret as given); unsigned without. */
  key?: { name: string; algorithm: TsigAlgorithm | string; secret: Buffer };
  tcp?: boolean;
  /** The script's `zone` line; null leaves it out: the client finds the zone by an SOA query (signed when a key is). */
  zone: string | null;
  /** The server's address (default 127.0.0.1). */
  host?: string;
}

/**
 * Runs `client` with the script `lines` (after `server` and the `zone` line), then `send` (and,
 * for knsupdate, `answer`, so that the answer's status is printed).
 */
export async function runUpdate(ctx: Pick<TestContext, 'skip'>, client: UpdateClient, port: number, lines: string[], options: UpdateRunOptions) {
  const tool = requireTool(client, ctx);
  const { key } = options;
  const script = [
    `server ${options.host ?? '127.0.0.1'} ${port}`,
    ...(client === 'knsupdate' && key ? [`key ${key.algorithm}:${key.name} ${key.secret.toString('base64')}`] : []),
    ...(options.zone === null ? [] : [`zone ${options.zone}.`]),
    ...lines,
    'send',
    ...(client === 'knsupdate' ? ['answer'] : []),
  ].join('\n');
  const args = [
    ...(options.tcp ? ['-v'] : []),
    ...(client === 'nsupdate' && key ? ['-y', `${key.algorithm}:${key.name}:${key.secret.toString('base64')}`] : []),
    '-t',
    '10',
  ];
  const run = await runToolAsync(tool, args, 30_000, `${script}\n`);
  return { code: run.code, output: `${run.stdout}${run.stderr}` };
}

/** What a client prints for an rcode it got: nsupdate "update failed: X", knsupdate "status: X". */
export const failedWith = (client: UpdateClient, rcode: string) =>
  client === 'nsupdate' ? new RegExp(`update failed: ${rcode}`) : new RegExp(`status: ${rcode}`);
