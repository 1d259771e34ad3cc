import { expect } from 'vitest';
import type { ApiResponse, RequestOptions } from './apiClient.js';

/** Request options that act for a customer (tenant id or billing:<id>). */
export const actAs = (target: string): RequestOptions => ({ headers: { 'X-Act-As-Customer': target } });

/** The response is an RFC 7807 problem with this status and code. */
export function expectProblem(res: ApiResponse, status: number, code: string) {
  expect(res.status, res.text).toBe(status);
  expect(res.headers.get('content-type')).toContain('application/problem+json');
  expect(res.body.code).toBe(code);
}

/** The response is 201; its body. */
export async function created(res: ApiResponse): Promise<any> {
  expect(res.status, res.text).toBe(201);
  return res.body;
}
