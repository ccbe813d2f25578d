import type { ApiResponse, CallOptions, Operation } from '../api.ts';
import { show } from '../failure.ts';
import { identity } from '../properties/relations.ts';
import { type PagedList, pagedLists } from '../properties/responses.ts';
import type { TestData } from '../test-data.ts';
import type { CheckContext } from './registry.ts';
import { baseName, validRequest } from './support.ts';

/** One page of a paged operation: its lists (calchistogram: one per histogram), the first one's items, and the response they came from. */
export interface Page {
  items: unknown[];
  lists: readonly PagedList[];
  response: ApiResponse;
}

/** The request paged by the paging checks: enough items to page through, in a stable order. */
export async function pagedRequest(op: Operation, data: TestData): Promise<CallOptions> {
  const request = await validRequest(op, data);
  if (baseName(op) === 'evaluate') return { params: { expr: await data.broadExpr(), attributes: 'Id,Ti' } };
  // Two histograms, so that every list of the answer is paged, not only the first.
  if (baseName(op) === 'calchistogram') return { params: { ...request.params, attributes: 'Y,F.FN' } };
  return request;
}

/** Fetches the page [offset, offset + size) of the operation. */
export async function page(ctx: CheckContext, request: CallOptions, size: number, offset: number): Promise<Page> {
  const paging = ctx.op.paging!;
  const params = { ...request.params, [paging.count]: String(size), [paging.offset]: String(offset) };
  const response = await ctx.api.call(ctx.op, { ...request, params });
  ctx.expect(
    response.status === 200,
    `page ${paging.count}=${size} ${paging.offset}=${offset} must succeed`,
    () => ({
      received: `status ${response.status}`,
      documented: 'status 200',
    }),
    response,
  );
  const lists = pagedLists(response.json, paging.items);
  return { items: lists[0]?.items ?? [], lists, response };
}

/** What makes two items the same result (see the properties' identity). */
export { identity };

/** Short list of identities for failure messages. */
export function showIds(items: unknown[]): string {
  return show(items.map(identity), 200);
}
