// The lab's trust anchor (docs/lab.md "Chain of trust"): the DS of the lab root's KSK, written
// where validators read it — DATA_DIR/lab-trust-anchors.conf (a BIND `trust-anchors` clause, for
// `delv -a`) and DATA_DIR/lab-root.key (DS lines, for unbound's `trust-anchor-file`) — and served
// by GET /lab/trust-anchors. Rewritten whenever the root's KSK set changes.
import fs from 'node:fs/promises';
import path from 'node:path';

const TRUST_ANCHORS_CONF = 'lab-trust-anchors.conf';
const ROOT_KEY_FILE = 'lab-root.key';

/** DS presentations ("<tag> <alg> <digest type> <hex>") → the two files' contents. */
function labTrustAnchorTexts(ds: string[]): { conf: string; rootKey: string } {
  const conf = `trust-anchors {\n${ds
    .map((d) => {
      const [tag, algorithm, digestType, ...digest] = d.split(/\s+/);
      return `  "." static-ds ${tag} ${algorithm} ${digestType} "${digest.join('')}";\n`;
    })
    .join('')}};\n`;
  const rootKey = ds.map((d) => `. IN DS ${d}\n`).join('');
  return { conf, rootKey };
}

export async function writeLabTrustAnchors(dataDir: string, ds: string[]): Promise<void> {
  const { conf, rootKey } = labTrustAnchorTexts(ds);
  await fs.mkdir(dataDir, { recursive: true });
  // Written beside and renamed: a validator starting meanwhile reads the old file or the new one.
  for (const [file, text] of [
    [TRUST_ANCHORS_CONF, conf],
    [ROOT_KEY_FILE, rootKey],
  ] as const) {
    const target = path.join(dataDir, file);
    await fs.writeFile(`${target}.tmp`, text);
    await fs.rename(`${target}.tmp`, target);
  }
}

export async function readLabTrustAnchors(dataDir: string): Promise<{ conf: string; rootKey: string } | null> {
  try {
    return { conf: await fs.readFile(path.join(dataDir, TRUST_ANCHORS_CONF), 'utf8'), rootKey: await fs.readFile(path.join(dataDir, ROOT_KEY_FILE), 'utf8') };
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
}
