import { show } from '../failure.ts';
import { objects } from '../json.ts';
import { defineCheck } from './registry.ts';
import { body } from './support.ts';

const DAY_MS = 86_400_000;

/** Trending events of a date are events of that date: each event's [from, to] overlaps the day asked for. */
export const check = defineCheck({
  id: 'hot-events-match-date',
  severity: 'fail',
  verifies: "hotevents for a date returns events of that date: each event's [from, to] overlaps that UTC day",
  kind: 'test',
  appliesTo: (op) => op.operationId === 'hotEvents',
  async run(ctx) {
    const { date } = await ctx.data.hotDate();
    const response = await ctx.api.call(ctx.op, { params: { date, $top: '20' } });
    const start = Date.parse(`${date}T00:00:00Z`);
    const events = objects(body(response).value) as { from?: string; to?: string }[];
    if (events.length === 0) ctx.skip(`hotevents returned no events for ${date} this time`);
    events.forEach((event, i) => {
      const from = Date.parse(String(event.from));
      const to = Number.isNaN(Date.parse(String(event.to))) ? from : Date.parse(String(event.to));
      ctx.expect(
        from < start + DAY_MS && to >= start,
        'event outside the date asked for',
        () => ({
          received: `from ${show(event.from)} to ${show(event.to)}`,
          documented: `an event of ${date} (interface 4.11: trending events by date)`,
          pointer: `/value/${i}`,
        }),
        response,
      );
    });
  },
});
