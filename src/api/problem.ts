// The one writer of RFC 7807 problem documents.
import type { Context } from 'koa';
import { type DomainError, errorCatalogue, type ErrorCode, type ErrorParams, localise } from '../domain/errors.js';
import { negotiateLanguage } from './language.js';

const PROBLEM_TYPE_BASE = '/docs#problem-';

export function writeProblem(ctx: Context, error: DomainError): void {
  const lang = negotiateLanguage(ctx.get('Accept-Language') || undefined);
  const { status, title, detail } = localise(error.code, lang, error.params);
  for (const [name, value] of Object.entries(error.headers)) ctx.set(name, value);
  ctx.status = status;
  ctx.set('Content-Language', lang);
  ctx.type = 'application/problem+json';
  ctx.body = {
    type: `${PROBLEM_TYPE_BASE}${error.code}`,
    title,
    status,
    code: error.code,
    detail,
    instance: ctx.path,
    request_id: ctx.state.requestId as string,
    ...Object.fromEntries((errorCatalogue[error.code].members ?? []).map((m) => [m, error.params[m]])),
    ...(error.errors.length ? { errors: error.errors } : {}),
  };
}
