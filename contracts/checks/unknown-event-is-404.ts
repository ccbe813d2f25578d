import { show } from '../failure.ts';
import { defineCheck } from './registry.ts';
import { body, expectStatus } from './support.ts';

/** An event id that does not exist. */
const UNKNOWN_EVENT_ID = 'ffffffffffffffffffffffffffffffff';

/** The documents of an unknown event are answered 404 `{statusCode:404,message:'Resource not found'}`. */
export const check = defineCheck({
  id: 'unknown-event-is-404',
  severity: 'fail',
  verifies: "the documents of an unknown event id are answered 404 {statusCode: 404, message: 'Resource not found'}",
  kind: 'test',
  appliesTo: (op) => op.operationId === 'eventDocuments',
  async run(ctx) {
    const response = await ctx.api.call(ctx.op, { pathParams: { event_id: UNKNOWN_EVENT_ID }, intent: 'error' });
    expectStatus(ctx, response, 404, 'an unknown event must be not found');
    const json = body(response);
    ctx.expect(
      json.statusCode === 404 && json.message === 'Resource not found',
      '404 body must be the documented one',
      () => ({
        received: show(json),
        documented: "{statusCode: 404, message: 'Resource not found'} (interface 7.4)",
      }),
      response,
    );
  },
});
