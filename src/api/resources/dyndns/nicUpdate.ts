// GET /nic/update, outside /api/v1 (spec: "a dyndns2-compatible GET /nic/update endpoint that
// lives outside /api/v1"). Plain text, one line per host name (docs/dyndns.md "Answers"); a
// failure of the service is `911`, never a stack trace, and no input makes it answer 500.
import type { Context } from 'koa';
import { DomainError } from '../../../domain/errors.js';
import {
  clientAddress,
  Dyndns2InputError,
  formatDyndns2Answers,
  formatDyndns2Refusal,
  parseDyndns2Request,
  parseTrustedProxies,
} from '../../../dyndns/dyndns2.js';
import type { Logger } from '../../../observability/logger.js';
import { type Metrics, registerDyndnsMetrics } from '../../../observability/metrics.js';
import { nicUpdate } from '../../../services/dyndns/nicUpdate.js';
import type { Services } from '../../../services/index.js';

export const NIC_UPDATE_PATH = '/nic/update';

export function nicUpdateHandler(services: Services, logger: Logger, metrics: Metrics) {
  const trusted = parseTrustedProxies(services.config.dyndns.trustedProxies);
  const limits = services.config.dyndns;
  registerDyndnsMetrics(metrics.registry, () => services.dyndnsCredentials.slowVerifications);
  return async (ctx: Context) => {
    ctx.state.route = NIC_UPDATE_PATH;
    // The router answers HEAD with GET's handler; an update writes, so a HEAD must not run one.
    if (ctx.method !== 'GET') {
      ctx.set('Allow', 'GET');
      throw new DomainError('method_not_allowed', { allowed: 'GET' });
    }
    let answer: ReturnType<typeof formatDyndns2Answers>;
    // Operators watch routers by what they are told (a wave of badauth, abuse or 911), not by HTTP status.
    const count = (code: string) => metrics.dyndnsAnswers.inc({ code });
    try {
      const source = clientAddress(ctx.req.socket.remoteAddress, ctx.get('X-Forwarded-For') || undefined, trusted);
      const request = parseDyndns2Request(
        ctx.query,
        { authorization: ctx.get('Authorization') || undefined, userAgent: ctx.get('User-Agent') || undefined },
        source,
        services.config.deployment,
      );
      const answers = await nicUpdate(services, limits, request, ctx.state.requestId as string);
      for (const a of answers) count(a.code);
      answer = formatDyndns2Answers(answers);
    } catch (err) {
      if (err instanceof Dyndns2InputError) {
        count(err.answer);
        answer = formatDyndns2Refusal(err);
      } else {
        // Never the credentials: the error only (the query is not logged either).
        logger.error({ request_id: ctx.state.requestId, err }, 'nic/update failed');
        count('911');
        answer = { status: 200, body: '911\n', headers: { 'Retry-After': '60' } };
      }
    }
    ctx.status = answer.status;
    for (const [name, value] of Object.entries(answer.headers)) ctx.set(name, value);
    ctx.set('Cache-Control', 'no-store');
    ctx.type = 'text/plain; charset=utf-8';
    ctx.body = answer.body;
  };
}
