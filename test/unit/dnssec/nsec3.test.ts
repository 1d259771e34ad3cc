// NSEC3 hashes: RFC 5155 Appendix A's vectors, and Knot's knsec3hash for those and random names.
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { nsec3Hash, nsec3Label } from '../../../src/dnssec/nsec3.js';
import { requireTool, runTool } from '../../helpers/dnsTools.js';

/** RFC 5155 Appendix A (salt aabbccdd, 12 iterations): owner → hashed label. */
const APPENDIX_A: Record<string, string> = {
  example: '0p9mhaveqvm6t7vbl5lop2u3t2rp3tom',
  'a.example': '35mthgpgcu1qg68fab165klnsnk3dpvl',
  'ai.example': 'gjeqe526plbf1g8mklp59enfd789njgi',
  'ns1.example': '2t7b4g4vsa5smi47k61mv5bv1a22bojr',
  'ns2.example': 'q04jkcevqvmu85r014c7dkba38o0ji5r',
  'w.example': 'k8udemvp1j2f7eg6jebps17vp3n8i58h',
  '*.w.example': 'r53bq7cc2uvmubfu5ocmm6pers9tk9en',
  'x.w.example': 'b4um86eghhds6nea196smvmlo4ors995',
  'y.w.example': 'ji6neoaepv8b5o6k4ev33abha8ht9fgc',
  'x.y.w.example': '2vptu5timamqttgl4luu9kg21e0aor3s',
  'xx.example': 't644ebqk9bibcna874givr6joj62mlhv',
};
const RFC_SALT = Buffer.from('aabbccdd', 'hex');

/** knsec3hash's hash of `name` (its first word of output). */
function knsec3hash(tool: string, name: string, salt: Buffer, iterations: number): string {
  const run = runTool(tool, [salt.length ? salt.toString('hex') : '-', '1', String(iterations), name]);
  expect(run.status, run.output).toBe(0);
  return run.stdout.split(/\s/)[0]!.toLowerCase();
}

const randomLabel = () => randomBytes(1 + (randomBytes(1)[0]! % 12)).toString('hex');

describe('NSEC3 hashes', () => {
  it('are the ones of RFC 5155 Appendix A', () => {
    for (const [name, label] of Object.entries(APPENDIX_A)) expect(nsec3Label(name, RFC_SALT, 12), name).toBe(label);
    expect(nsec3Hash('example', RFC_SALT, 12)).toHaveLength(20);
  });

  it('do not depend on the case of the name (RFC 5155 §5: canonical wire form)', () => {
    expect(nsec3Label('X.W.Example', RFC_SALT, 12)).toBe(APPENDIX_A['x.w.example']);
  });

  it('agree with knsec3hash for the RFC names and random ones, with and without salt and iterations', (ctx) => {
    const tool = requireTool('knsec3hash', ctx);
    for (const name of Object.keys(APPENDIX_A)) expect(knsec3hash(tool, name, RFC_SALT, 12), name).toBe(nsec3Label(name, RFC_SALT, 12));
    for (let i = 0; i < 20; i++) {
      const name = Array.from({ length: 1 + (i % 4) }, randomLabel).join('.');
      const salt = i % 2 ? randomBytes(1 + (i % 8)) : Buffer.alloc(0);
      const iterations = i % 3 === 0 ? 0 : i * 7;
      expect(knsec3hash(tool, name, salt, iterations), `${name} ${salt.toString('hex')} ${iterations}`).toBe(nsec3Label(name, salt, iterations));
    }
  });
});
