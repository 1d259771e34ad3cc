// Zones that only some clients may read (a catalog zone, RFC 9432: only its consumers). Each
// such zone has an access list: the addresses that may query and transfer it, and the key
// (by its owner, the service's credential id) a transfer must be signed with, when there is one.
// Every other zone is answered to anyone, as before. The lists are replaced whole, like the
// tenants' TSIG keys (keyRing.ts), by whoever knows which zones are restricted: the nameserver
// itself knows nothing of tenants or sets. A list may also grant its clients the transfer of the
// zones the restricted zone lists as a catalog (RFC 9432): a set's secondaries, with the set's key,
// transfer its members though the deployment's transfer rules would not let them.
import { isAtOrBelow, normalizeName } from '../wire/name.js';
import type { TsigKey } from '../wire/tsig.js';
import { AddressList } from './addressList.js';

/** The access list of one zone as the service hands it over (and as it crosses the IPC channel). */
export interface ZoneAccess {
  origin: string;
  /** Addresses (IPv4 or IPv6 literals, or CIDR blocks) allowed to query and transfer the zone. */
  addresses: string[];
  /** When set, a transfer must be signed with the key of this owner (TsigKey.owner). */
  transferKeyOwner: string | null;
  /** The zone is a catalog: the same clients (and key) may also transfer every zone it lists. */
  grantsMembers: boolean;
}

interface Compiled {
  addresses: AddressList;
  transferKeyOwner: string | null;
  grantsMembers: boolean;
}

export class ZoneAccessLists {
  private lists: ReadonlyMap<string, Compiled> = new Map();
  private current: readonly ZoneAccess[] = [];
  private readonly listeners = new Set<(lists: readonly ZoneAccess[]) => void>();

  /** Replaces every list at once. An address that does not parse is left out (never widens a list). */
  set(lists: readonly ZoneAccess[]): void {
    const next = new Map<string, Compiled>();
    for (const list of lists) {
      const blocks = list.addresses.filter((a) => {
        try {
          return new AddressList([a]).size === 1;
        } catch {
          return false;
        }
      });
      next.set(normalizeName(list.origin), {
        addresses: new AddressList(blocks),
        transferKeyOwner: list.transferKeyOwner,
        grantsMembers: list.grantsMembers,
      });
    }
    this.lists = next;
    this.current = lists.map((l) => ({ ...l, addresses: [...l.addresses] }));
    for (const listener of this.listeners) listener(this.current);
  }

  get all(): readonly ZoneAccess[] {
    return this.current;
  }

  /**
   * The restricted zone `name` (lower case, no trailing dot) lies at or below, else null. By name
   * alone, without a lookup in the zone store on every query: no zone lies inside another (the
   * service refuses overlapping names), so the zone answering a name below a restricted origin
   * is that zone. Nothing to look at without lists, the usual case.
   */
  restrictedOriginOf(name: string): string | null {
    for (const origin of this.lists.keys()) if (isAtOrBelow(name, origin)) return origin;
    return null;
  }

  /** May `address` query zone `origin`? True for a zone without a list. */
  mayQuery(origin: string, address: string): boolean {
    const list = this.lists.get(origin);
    return !list || list.addresses.includes(address);
  }

  /**
   * May `address`, signed with `key` (null: unsigned), transfer zone `origin`? Undefined for a
   * zone without a list (the server's own transfer rules decide).
   */
  mayTransfer(origin: string, address: string, key: TsigKey | null): boolean | undefined {
    const list = this.lists.get(origin);
    if (!list) return undefined;
    return admits(list, address, key);
  }

  /** The catalogs whose members `address`, signed with `key`, may transfer: the caller looks the zone up in them. */
  catalogsGranting(address: string, key: TsigKey | null): string[] {
    const origins: string[] = [];
    for (const [origin, list] of this.lists) if (list.grantsMembers && admits(list, address, key)) origins.push(origin);
    return origins;
  }

  /** Calls `listener` with the new lists after every set; returns the unsubscribe. */
  onChange(listener: (lists: readonly ZoneAccess[]) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}

function admits(list: Compiled, address: string, key: TsigKey | null): boolean {
  if (!list.addresses.includes(address)) return false;
  return list.transferKeyOwner === null || (key !== null && key.owner === list.transferKeyOwner);
}
