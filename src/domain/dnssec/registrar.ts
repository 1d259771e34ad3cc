// Where DS records are put at the parent (docs/dnssec.md "Modes"). A domain registered through
// the provider gets its DS submitted by the service (mode automatic); any other domain's DS is
// added by the customer at its own registrar (assisted). The lab has a registry of its own
// (src/lab/registrar.ts); production has no registrar interface yet, so nothing counts as
// registered here and every zone is assisted.
//
// A caller inside a transaction hands it over (`trx`): a registry kept in our database (the lab's)
// then reads and writes on that connection. Asking the pool for a second one while holding the
// first deadlocks the pool under load — N concurrent DNSSEC requests each holding one connection
// and waiting for another answered 503 after the acquire timeout.
/** `Transaction`: the store's (Knex's) transaction, named by the implementation; this library knows no store. */
export interface Registrar<Transaction = unknown> {
  /** true: the domain is registered through the provider (DNSSEC mode automatic); false: assisted. */
  registeredHere(zoneName: string, trx?: Transaction): Promise<boolean>;
  /** Puts exactly these DS records (wire RDATA) at the parent for the zone; [] removes them. In `trx` when given. */
  setDs(zoneName: string, ds: Buffer[], trx?: Transaction): Promise<void>;
  /** Whether the parent delegates the zone to the service's nameservers ('unknown': cannot tell). */
  delegation(zoneName: string, trx?: Transaction): Promise<'ours' | 'elsewhere' | 'unknown'>;
}

export const noRegistrar: Registrar = {
  registeredHere: async () => false,
  setDs: async (zoneName) => {
    throw new Error(`no registrar interface: the DS of ${zoneName} cannot be submitted`);
  },
  delegation: async () => 'unknown',
};
