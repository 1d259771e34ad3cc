// `Prefer: wait=N` on writes (RFC 7240; docs/api-conventions.md "Waiting until live"): after the
// write committed, its answer waits up to N seconds until its change sets are live (or failed),
// then the written resource is read again and presented as it is now. No transaction and no
// database connection are held while waiting (src/services/liveWait.ts).
import type { Context } from 'koa';
import type { FinalResponse } from '../../services/idempotentWrite.js';
import { MAX_LIVE_WAIT_MS, waitUntilLive } from '../../services/liveWait.js';
import { clientWait, withDatabaseDeadline } from '../../services/requestDeadline.js';
import { preferredWaitSeconds } from './prefer.js';
import type { HandlerInput, HandlerResult, LiveWaitSpec } from './route.js';

const PREFERENCE_APPLIED = 'Preference-Applied';

/**
 * The answer to a write that asked to wait: `response` (as the write or its idempotent replay gave
 * it) once its change sets are live, failed or gone, or N seconds passed, with its body and ETag
 * read again and `Preference-Applied: wait=N` (N capped at MAX_LIVE_WAIT_MS). Status and other
 * headers stay. Without a usable preference, or for a write that stored no change set (a dry
 * run), `response` unchanged.
 */
export async function answerOnceLive(
  ctx: Context,
  spec: LiveWaitSpec,
  response: FinalResponse,
  input: HandlerInput<unknown, unknown, unknown>,
  finalize: (result: HandlerResult) => FinalResponse,
): Promise<FinalResponse> {
  const asked = preferredWaitSeconds(ctx.get('Prefer') || undefined);
  // wait=0 asks for what happens without the header: the answer at once.
  if (!asked || response.status >= 300 || response.body === null || !response.contentType.startsWith('application/json')) return response;
  const written: unknown = JSON.parse(response.body);
  const changeSets = spec.changeSets(written);
  if (!changeSets.length) return response;

  const seconds = Math.min(asked, MAX_LIVE_WAIT_MS / 1000);
  const applied = { ...response.headers, [PREFERENCE_APPLIED]: `wait=${seconds}` };
  // The client went away: its waiter goes now, not at N seconds (ServerResponse's 'close' before
  // the answer is written means the connection closed).
  const gone = new AbortController();
  const onClose = () => gone.abort();
  ctx.res.once('close', onClose);
  try {
    await clientWait('live_wait', () => waitUntilLive(input.services, changeSets, seconds * 1000, gone.signal));
  } finally {
    ctx.res.off('close', onClose);
  }
  if (gone.signal.aborted) return { ...response, headers: applied };

  // The request's database deadline began before the wait: the read after it gets one of its own.
  let fresh: FinalResponse;
  try {
    const reread = await withDatabaseDeadline(input.services.config.database.requestTimeoutMs, () => spec.reread(input, written));
    fresh = finalize({ status: response.status, ...reread });
  } catch {
    // The write committed and its answer stands: a resource deleted meanwhile, or a database that
    // stopped answering, must not turn it into a 404 or 503 that makes a client write again.
    return { ...response, headers: applied };
  }
  return { ...response, headers: { ...applied, ...fresh.headers }, body: fresh.body };
}
