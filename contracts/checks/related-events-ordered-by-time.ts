import { show } from '../failure.ts';
import { objects } from '../json.ts';
import { defineCheck } from './registry.ts';
import { body, parseUtc } from './support.ts';

/** relatedevents is sorted by event time in one direction (the interface does not say which). */
export const check = defineCheck({
  id: 'related-events-ordered-by-time',
  severity: 'fail',
  verifies: 'related events are sorted by event time (from), monotonic in one direction',
  kind: 'test',
  appliesTo: (op) => op.operationId === 'relatedEvents',
  async run(ctx) {
    const wikipediaid = await ctx.data.wikipediaId();
    const response = await ctx.api.call(ctx.op, { params: { wikipediaid, $top: '50' } });
    const events = objects(body(response).value) as { from?: string }[];
    if (events.length < 2)
      ctx.skip(`relatedevents returned ${events.length} event(s) for ${wikipediaid}: nothing to order`);
    const times = events.map((event) => parseUtc(event.from));
    const steps = times.slice(1).map((t, i) => Math.sign(t - times[i]!));
    const rising = steps.every((s) => s >= 0);
    const falling = steps.every((s) => s <= 0);
    ctx.expect(
      rising || falling,
      'related events not monotonic in time',
      () => ({
        received: `from: ${show(
          events.map((e) => e.from),
          240,
        )}`,
        documented: 'sorted by event time, in one direction (interface 4.12)',
        pointer: '/value',
      }),
      response,
    );
  },
});
