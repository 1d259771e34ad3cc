/** A client of the provider's billing system, as the act-as auto-link needs it. */
export interface BillingClient {
  id: string;
  name: string;
  email: string | null;
  status: 'active' | 'closed';
}

/** Read-only view of the billing system. Production reaches it over HTTP; the lab simulates it. */
export interface BillingDirectory {
  /** Null when the billing system has no such client. Throws when it cannot be reached. */
  findClient(id: string): Promise<BillingClient | null>;
}

export class BillingUnavailableError extends Error {}

/** Used when no billing system is configured: every client is unknown. */
export const noBillingSystem: BillingDirectory = { findClient: async () => null };
