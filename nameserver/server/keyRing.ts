// The TSIG keys a server believes in: the deployment's own (DNS_TSIG_KEYS, fixed at start, for
// transfers, NOTIFY and anything else) and the tenants' (replaced whole by the service whenever
// its set changes: setTenantKeys). A message's key is looked up by name, deployment keys first,
// so a tenant can never shadow the provider's key by choosing its name.
import { normalizeName } from '../wire/name.js';
import { DEFAULT_TSIG_ALGORITHM, type TsigAlgorithm, type TsigKey, type TsigKeyFinder } from '../wire/tsig.js';

/** A deployment key as configured: name (any case, trailing dot or not), secret, algorithm (default hmac-sha256). */
export interface TsigKeyConfig {
  name: string;
  secret: Buffer;
  algorithm?: TsigAlgorithm;
}

/** What setTenantKeys left out: names a deployment key holds, names given twice (the first kept). */
export interface TenantKeyConflicts {
  shadowed: string[];
  duplicates: string[];
}

export class TsigKeyRing implements TsigKeyFinder {
  private readonly deployment: ReadonlyMap<string, TsigKey>;
  private tenant: ReadonlyMap<string, TsigKey> = new Map();
  private readonly listeners = new Set<(keys: readonly TsigKey[]) => void>();

  constructor(deploymentKeys: readonly TsigKeyConfig[]) {
    const keys = new Map<string, TsigKey>();
    for (const k of deploymentKeys) {
      const name = normalizeName(k.name);
      if (!keys.has(name)) keys.set(name, { name, algorithm: k.algorithm ?? DEFAULT_TSIG_ALGORITHM, secret: k.secret, owner: null });
    }
    this.deployment = keys;
  }

  /** The key named `name` (lower case, no trailing dot): the deployment's if it has one, else a tenant's. */
  get(name: string): TsigKey | undefined {
    return this.deployment.get(name) ?? this.tenant.get(name);
  }

  get hasDeploymentKeys(): boolean {
    return this.deployment.size > 0;
  }

  /** The deployment's keys, in configured order (the first signs outgoing NOTIFY). */
  get deploymentKeys(): readonly TsigKey[] {
    return [...this.deployment.values()];
  }

  get tenantKeys(): readonly TsigKey[] {
    return [...this.tenant.values()];
  }

  /** True for a key of the deployment's own list (this very key object, as get() returns it). */
  isDeploymentKey(key: TsigKey): boolean {
    return this.deployment.get(key.name) === key;
  }

  /**
   * Replaces the tenant keys at once: a message is checked against the old set or the new one,
   * never a mix. Each must name its owner (a null owner means a deployment key and would let it
   * authorize transfers: a RangeError). Names are canonicalised; a name a deployment key holds,
   * or one given twice, is left out and reported.
   */
  setTenantKeys(keys: readonly TsigKey[]): TenantKeyConflicts {
    const next = new Map<string, TsigKey>();
    const conflicts: TenantKeyConflicts = { shadowed: [], duplicates: [] };
    for (const k of keys) {
      if (k.owner === null) throw new RangeError(`tenant TSIG key ${k.name} has no owner`);
      const name = normalizeName(k.name);
      if (this.deployment.has(name)) conflicts.shadowed.push(name);
      else if (next.has(name)) conflicts.duplicates.push(name);
      else next.set(name, name === k.name ? k : { ...k, name });
    }
    this.tenant = next;
    const current = [...next.values()];
    for (const listener of this.listeners) listener(current);
    return conflicts;
  }

  /** Calls `listener` with the new tenant set after every setTenantKeys; returns the unsubscribe. */
  onTenantKeys(listener: (keys: readonly TsigKey[]) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}
