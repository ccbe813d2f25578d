import type { ApiResponse } from '../api.ts';
import { show } from '../failure.ts';
import type { CheckContext } from './registry.ts';

/** Sends one similarity request (GET or POST, whichever the test's operation is) and returns the number. */
export async function similarity(
  ctx: CheckContext,
  s1: string,
  s2: string,
): Promise<{ value: number; response: ApiResponse }> {
  const response = await ctx.api.call(ctx.op, { params: { s1, s2 } });
  ctx.expect(
    response.status === 200 && typeof response.json === 'number',
    'similarity is not a number',
    () => ({
      received: `status ${response.status}, body ${show(response.json)}`,
      documented: 'status 200 with a bare JSON number (interface 2.4)',
    }),
    response,
  );
  return { value: response.json as number, response };
}
