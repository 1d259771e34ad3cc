// Where DS records are put at the parent (docs/dnssec.md "Modes"). A domain registered through
// the provider gets its DS submitted by the service (mode automatic); any other domain's DS is
// added by the customer at its own registrar (assisted). The lab has a registry of its own
// (src/lab/registrar.ts); production has no registrar interface yet, so nothing counts as
// registered here and every zone is assisted.
export interface Registrar {
  /** true: the domain is registered through the provider (DNSSEC mode automatic); false: assisted. */
  registeredHere(zoneName: string): Promise<boolean>;
  /** Puts exactly these DS records (wire RDATA) at the parent for the zone; [] removes them. */
  setDs(zoneName: string, ds: Buffer[]): Promise<void>;
  /** Whether the parent delegates the zone to the service's nameservers ('unknown': cannot tell). */
  delegation(zoneName: string): Promise<'ours' | 'elsewhere' | 'unknown'>;
}

export const noRegistrar: Registrar = {
  registeredHere: async () => false,
  setDs: async (zoneName) => {
    throw new Error(`no registrar interface: the DS of ${zoneName} cannot be submitted`);
  },
  delegation: async () => 'unknown',
};
