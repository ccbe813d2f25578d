import { show } from '../failure.ts';
import { defineCheck } from './registry.ts';
import { ISO_UTC, validRequest } from './support.ts';

/** Where each operation carries timestamps: paths with `*` for every array element. */
const TIMESTAMPS: Record<string, string[]> = {
  answerSearch: ['/webPages/value/*/dateLastCrawled'],
  hotEvents: ['/value/*/from', '/value/*/to', '/value/*/topDocument/publishDate'],
  relatedEvents: ['/value/*/from', '/value/*/to', '/value/*/topDocument/publishDate'],
  eventDocuments: ['/value/*/publishDate'],
};

/** Timestamps are ISO 8601 UTC (`...Z`), fractional seconds allowed. */
export const check = defineCheck({
  id: 'timestamps-are-iso-utc',
  severity: 'fail',
  verifies: 'dateLastCrawled, from, to and publishDate are ISO 8601 UTC timestamps (fractional seconds allowed)',
  kind: 'test',
  appliesTo: (op) => op.operationId in TIMESTAMPS,
  async run(ctx) {
    const response = await ctx.api.call(ctx.op, await validRequest(ctx.op, ctx.data));
    for (const path of TIMESTAMPS[ctx.op.operationId]!) {
      for (const [pointer, value] of expand(response.json, path.split('/').slice(1), '')) {
        if (value === undefined) continue;
        ctx.expect(
          typeof value === 'string' && ISO_UTC.test(value) && Number.isFinite(Date.parse(value)),
          'timestamp not ISO 8601 UTC',
          () => ({
            received: show(value),
            documented: 'an ISO 8601 UTC timestamp such as 2024-05-01T12:30:00Z (interface 2.5, 2.7)',
            pointer,
          }),
          response,
        );
      }
    }
  },
});

/** Every (pointer, value) reached by a path whose `*` segments walk arrays. */
function expand(node: unknown, segments: string[], prefix: string): [string, unknown][] {
  if (segments.length === 0) return [[prefix, node]];
  const [head, ...rest] = segments;
  if (node === null || typeof node !== 'object') return [];
  if (head === '*') {
    return Array.isArray(node) ? node.flatMap((item, i) => expand(item, rest, `${prefix}/${i}`)) : [];
  }
  return expand((node as Record<string, unknown>)[head!], rest, `${prefix}/${head}`);
}
