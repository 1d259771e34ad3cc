// A route is declared once: its schemas validate requests, describe responses in the OpenAPI
// document, and type the handler's input.
import type { z } from 'zod';
import type { ErrorCode, Language } from '../../domain/errors.js';
import type { Scope } from '../../domain/scopes.js';
import type { Feature } from '../../domain/tenancy.js';
import type { DbContext } from '../../db/context.js';
import type { Actor } from '../../services/actor.js';
import type { AfterCommit } from '../../services/idempotentWrite.js';
import type { Services } from '../../services/index.js';
import type { WriteContext } from '../../services/writeContext.js';

export type Method = 'get' | 'post' | 'patch' | 'put' | 'delete';

export interface ResponseSpec {
  description: string;
  schema?: z.ZodType;
  /** Response headers worth documenting (ETag, Location, …). */
  headers?: string[];
  contentType?: string;
}

export interface RequestMeta {
  id: string;
  language: Language;
  ifMatch: string | null;
  ifNoneMatch: string | null;
  /** Path and query as requested, for Location and Link headers. */
  url: URL;
}

export interface HandlerInput<P, Q, B> {
  params: P;
  query: Q;
  body: B;
  actor: Actor;
  /**
   * Where the services the handler calls read, confined to the acting tenant's subtree (and a
   * credential's zones): the request transaction for writes, the pool otherwise. Opaque here.
   */
  context: DbContext;
  /** The request transaction's write context (writes only; null in reads and `prepare`). */
  write: WriteContext | null;
  /** What the route's `prepare` returned (writes with a prepare step only). */
  prepared?: unknown;
  /** Runs an effect once the write committed (never if it rolled back); at once for reads. */
  afterCommit: AfterCommit;
  services: Services;
  request: RequestMeta;
}

export interface HandlerResult {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
  /**
   * Send an ETag (and answer 304 to a matching If-None-Match): `true` computes it from the body; a
   * string is the tag itself (zones and records: rowEtag of the stored version).
   */
  etag?: boolean | string;
  contentType?: string;
}

/**
 * How a write's answer waits until its change sets are live (`Prefer: wait=N`, RFC 7240;
 * docs/api-conventions.md "Waiting until live"). `written` is the answer's JSON body as the write
 * (or its idempotent replay) gave it.
 */
export interface LiveWaitSpec {
  /** The change sets to wait for; none (a dry run stored nothing): the preference is ignored. */
  changeSets(written: unknown): string[];
  /** The body (and ETag) again after the wait: the written resource as it is now, through its presenter. */
  reread(input: HandlerInput<unknown, unknown, unknown>, written: unknown): Promise<Pick<HandlerResult, 'body' | 'etag'>>;
}

/** Declares a LiveWaitSpec for answers of the shape `W` (the route's response schema, which the answer was built to). */
export function liveWaitOn<W>(spec: {
  changeSets(written: W): string[];
  reread(input: HandlerInput<unknown, unknown, unknown>, written: W): Promise<Pick<HandlerResult, 'body' | 'etag'>>;
}): LiveWaitSpec {
  return spec as unknown as LiveWaitSpec;
}

export interface RouteSpec<P extends z.ZodType = z.ZodType, Q extends z.ZodType = z.ZodType, B extends z.ZodType = z.ZodType> {
  method: Method;
  /** OpenAPI path template below the base path, e.g. `/tenants/{tenant}`. */
  path: string;
  operationId: string;
  summary: string;
  description?: string;
  tag: string;
  /** Every scope listed is required. */
  scopes: Scope[];
  /** Still available while the acting tenant is suspended (GET /me). */
  allowSuspended?: boolean;
  feature?: Feature;
  /** Mounted only in the sandbox (under /lab); 404 in production. */
  labOnly?: boolean;
  /** Also accepts multipart/form-data: the file in `fileField` becomes `bodyField` of the body. */
  upload?: { fileField: string; bodyField: string; maxBytes: number };
  params?: P;
  query?: Q;
  body?: B;
  responses: Record<number, ResponseSpec>;
  /** Problem codes this operation can answer beyond the ones every operation can. */
  errors?: ErrorCode[];
  handler: (input: HandlerInput<z.output<P>, z.output<Q>, z.output<B>>) => Promise<HandlerResult>;
  /**
   * A write's slow work that needs no transaction (lookups over the network), run before the
   * request's transaction opens, so that no database connection waits on it; its result reaches
   * the handler as `prepared`. It runs for idempotent replays too and must not refuse: the
   * handler, in the transaction, decides (a prepare that finds nothing to do returns null).
   */
  prepare?: (input: HandlerInput<z.output<P>, z.output<Q>, z.output<B>>) => Promise<unknown>;
  /** A write whose answer may wait until its change sets are live (`Prefer: wait`). */
  liveWait?: LiveWaitSpec;
}

/** Declares a route; the identity function keeps the schema-to-handler types connected. */
export function defineRoute<P extends z.ZodType = z.ZodType, Q extends z.ZodType = z.ZodType, B extends z.ZodType = z.ZodType>(
  spec: RouteSpec<P, Q, B>,
): RouteSpec {
  return spec as unknown as RouteSpec;
}

/** The write context services take, from a write handler's input (the pipeline opened the transaction). */
export function writeContext(input: HandlerInput<unknown, unknown, unknown>): WriteContext {
  if (!input.write) throw new Error('writeContext used outside a write request');
  return input.write;
}

/** The answer of a write that leaves nothing to show (a delete): 204 once it is done. */
export async function noContent(done: Promise<unknown>): Promise<HandlerResult> {
  await done;
  return { status: 204 };
}
