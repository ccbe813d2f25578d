import { show } from '../failure.ts';
import { encodePairs } from '../generative/cases.ts';
import { encodingDoesNotMatter, sameAnswer, TEXT_OPERATIONS } from '../properties/relations.ts';
import { describeTolerance, toleranceNote } from '../properties/tolerance.ts';
import { defineCheck } from './registry.ts';
import { validRequest } from './support.ts';

/** A request percent-encoded otherwise (every byte escaped, lower-case hex) is the same request. */
export const check = defineCheck({
  id: 'encoding-does-not-matter',
  severity: 'fail',
  verifies:
    'the same parameters sent with every byte percent-encoded and lower-case hex digits (equivalent by RFC 3986) get the same status and answer: the same JSON for academic search and similarity (numbers within the tolerance), the same results in the same order elsewhere; for chosen and for generated inputs (the one per operation that needs the most escaping)',
  kind: 'test',
  appliesTo: (op) => TEXT_OPERATIONS.includes(op.operationId),
  async run(ctx) {
    const request = await validRequest(ctx.op, ctx.data);
    const params = request.params ?? {};
    const plain = await ctx.api.call(ctx.op, request);
    const escaped = await ctx.api.call(ctx.op, {
      ...request,
      rawQuery: encodePairs(Object.entries(params), 'escaped'),
    });
    const { same, agreement } = await sameAnswer(ctx.op.operationId, plain, escaped, async () => {
      const again = await ctx.api.call(ctx.op, request);
      return again.status === plain.status ? again.json : undefined;
    });
    if (agreement?.learned) ctx.note(toleranceNote(ctx.op.label, agreement));
    ctx.expect(
      same,
      'the same request, encoded otherwise, answered differently',
      () => ({
        received: `every byte escaped: status ${escaped.status} ${show(escaped.json, 160)}`,
        documented: `as the form-encoded request: status ${plain.status} ${show(plain.json, 160)}${agreement ? `, numbers within ${describeTolerance(agreement)}` : ''} (relation: ${encodingDoesNotMatter.name})`,
      }),
      escaped,
    );
  },
});
