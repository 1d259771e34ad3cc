// The NSEC3 hash (RFC 5155 §5): the RFC's own examples (Appendix A, salt aabbccdd, 12 extra
// iterations), then random names, salts and iteration counts against Knot's knsec3hash.
import { spawnSync } from 'node:child_process';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { nsec3HashLabel } from '../../../nameserver/wire/nsec3Hash.js';
import { requireTool } from '../../helpers/dnsTools.js';

describe('nsec3HashLabel', () => {
  const salt = Buffer.from('aabbccdd', 'hex');

  // RFC 5155 Appendix A: the hashed owner names of the example zone.
  it.each([
    ['example', '0p9mhaveqvm6t7vbl5lop2u3t2rp3tom'],
    ['a.example', '35mthgpgcu1qg68fab165klnsnk3dpvl'],
    ['ai.example', 'gjeqe526plbf1g8mklp59enfd789njgi'],
    ['ns1.example', '2t7b4g4vsa5smi47k61mv5bv1a22bojr'],
    ['x.y.w.example', '2vptu5timamqttgl4luu9kg21e0aor3s'],
    ['*.w.example', 'r53bq7cc2uvmubfu5ocmm6pers9tk9en'],
    ['w.example', 'k8udemvp1j2f7eg6jebps17vp3n8i58h'],
    ['y.w.example', 'ji6neoaepv8b5o6k4ev33abha8ht9fgc'],
    // The canonical form is lower case (RFC 4034 §6.2): the hash of xx.example.
    ['XX.EXAMPLE', 't644ebqk9bibcna874givr6joj62mlhv'],
  ])('%s → %s (RFC 5155 Appendix A)', (name, hash) => {
    expect(nsec3HashLabel(name, salt, 12)).toBe(hash);
  });

  it.skipIf(!requireTool('knsec3hash'))('agrees with knsec3hash for random names, salts and iterations', () => {
    const label = fc.stringMatching(/^[a-z0-9][a-z0-9-]{0,11}$/);
    fc.assert(
      fc.property(
        fc.array(label, { minLength: 1, maxLength: 4 }),
        fc.uint8Array({ maxLength: 8 }),
        fc.integer({ min: 0, max: 20 }),
        (labels, saltOctets, iterations) => {
          const name = labels.join('.');
          const saltHex = Buffer.from(saltOctets).toString('hex') || '-';
          const knot = spawnSync('knsec3hash', [saltHex, '1', String(iterations), name], { encoding: 'utf8' });
          expect(knot.status, knot.stderr).toBe(0);
          expect(nsec3HashLabel(name, saltOctets, iterations)).toBe(knot.stdout.split(' ')[0]);
        },
      ),
      { numRuns: 40 },
    );
  });
});
