// The one pagination helper: cursor in, list envelope and Link header out.
import { z } from 'zod';
import type { HandlerInput, HandlerResult } from './routing/route.js';

type AnyInput = HandlerInput<unknown, { cursor?: string; limit: number }, unknown>;

/** A cursor is valid only for the list and the acting tenant it was issued for. */
const bindingOf = (input: AnyInput, list: string) => `${list}|${input.actor.acting.id}`;

export function pageRequest(input: AnyInput, list: string): { after: unknown[] | null; limit: number } {
  const { cursor, limit } = input.query;
  return { after: cursor ? input.services.cursors.decode(bindingOf(input, list), cursor) : null, limit };
}

export function listResult(input: AnyInput, list: string, data: unknown[], next: unknown[] | null, extra: Record<string, unknown> = {}): HandlerResult {
  const nextCursor = next ? input.services.cursors.encode(bindingOf(input, list), next) : null;
  const headers: Record<string, string> = {};
  if (nextCursor) {
    const url = new URL(input.request.url);
    url.searchParams.set('cursor', nextCursor);
    headers.Link = `<${url.pathname}${url.search}>; rel="next"`;
  }
  return { status: 200, headers, body: { data, pagination: { next_cursor: nextCursor, has_more: nextCursor !== null, ...extra } } };
}

/** A list short enough to answer whole: the list envelope with no next page. */
export const wholeList = (data: unknown[]): HandlerResult => ({ status: 200, body: { data, pagination: { next_cursor: null, has_more: false } } });

/** A page of a stored list, as a service reads it: its items and where the next page starts. */
interface Page<T> {
  items: T[];
  next: unknown[] | null;
}

/** A list route's answer: the cursor decoded, the page read with it, each item presented, the next page linked. */
export async function pagedList<T>(
  input: AnyInput,
  list: string,
  read: (after: unknown[] | null, limit: number) => Promise<Page<T>>,
  present: (item: T) => unknown,
): Promise<HandlerResult> {
  const { after, limit } = pageRequest(input, list);
  const page = await read(after, limit);
  return listResult(
    input,
    list,
    page.items.map((item) => present(item)),
    page.next,
  );
}

export const listEnvelope = <T extends z.ZodType>(item: T) =>
  z.object({
    data: z.array(item),
    pagination: z.object({
      next_cursor: z.string().nullable().describe('Pass as `cursor` for the next page; null on the last page.'),
      has_more: z.boolean(),
    }),
  });
