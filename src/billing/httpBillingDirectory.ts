import { z } from 'zod';
import { type BillingClient, type BillingDirectory, BillingUnavailableError } from './billingDirectory.js';

const clientSchema = z.object({
  id: z.coerce.string(),
  name: z.string().min(1),
  email: z.string().nullable().optional(),
  status: z.enum(['active', 'closed']),
});

/**
 * The production adapter: `GET {baseUrl}/clients/{id}` with a bearer token, answered by the
 * billing system with `{id, name, email, status}` or 404. Read-only by design.
 */
export class HttpBillingDirectory implements BillingDirectory {
  constructor(
    private readonly baseUrl: string,
    private readonly token: string | null,
    private readonly timeoutMs = 5000,
  ) {}

  async findClient(id: string): Promise<BillingClient | null> {
    const url = `${this.baseUrl.replace(/\/$/, '')}/clients/${encodeURIComponent(id)}`;
    let response: Response;
    try {
      response = await fetch(url, {
        headers: { accept: 'application/json', ...(this.token ? { authorization: `Bearer ${this.token}` } : {}) },
        signal: AbortSignal.timeout(this.timeoutMs),
      });
    } catch (e) {
      throw new BillingUnavailableError(`billing system unreachable: ${(e as Error).message}`);
    }
    if (response.status === 404 || !response.ok) {
      await response.body?.cancel(); // release the connection
      if (response.status === 404) return null;
      throw new BillingUnavailableError(`billing system answered ${response.status}`);
    }
    const parsed = clientSchema.safeParse(await response.json().catch(() => null));
    if (!parsed.success) throw new BillingUnavailableError('billing system sent an unreadable client');
    return { ...parsed.data, email: parsed.data.email ?? null };
  }
}
