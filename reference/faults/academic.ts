import { ATTRIBUTE_BY_LOWER, ATTRIBUTES } from '../academic/attributes.ts';
import {
  child,
  dropParams,
  editOk,
  editStatus,
  type JsonObject,
  OPS,
  objects,
  postOnly,
  shiftIntParam,
  sleep,
  withBody,
} from './transform.ts';
import type { Fault, RequestContext } from './types.ts';

/** Every paper attribute the corpus knows (facts.md), in the case the interface uses. */
const PAPER_ATTRIBUTES = ATTRIBUTES.map((attribute) => attribute.name);

const ACADEMIC_SEARCH = [...OPS.interpret, ...OPS.evaluate, ...OPS.calchistogram];

/** Interpret requests whose `timeout` the timeout-ignored fault removed, so its answer can be delayed. */
const timeoutsDropped = new WeakSet<RequestContext>();

/** Prefixes every attribute name of an expression with the parse XML's `academic#` namespace. */
export function namespaceAttributes(expr: string): string {
  return expr.replace(/\b([A-Z][A-Za-z]*(?:\.[A-Za-z]+)?)(?=\s*(?:==|=|>=|<=|>|<))/g, 'academic#$1');
}

function flipDirection(orderby: string): string {
  return orderby.replace(/:(asc|desc)\s*$/i, (_, dir: string) => (dir.toLowerCase() === 'asc' ? ':desc' : ':asc'));
}

function histograms(body: JsonObject): JsonObject[] {
  return objects(body.histograms);
}

/** Forbidden deviations of interpret, evaluate and calchistogram. */
export function academicFaults(): Fault[] {
  return [
    {
      name: 'interpret-prob-missing',
      group: 'academic',
      operations: [...OPS.interpret],
      deviation: 'forbidden',
      description: 'interpret drops the documented interpretations[].prob field',
      response: editOk((body) => {
        for (const interpretation of objects(body.interpretations)) delete interpretation.prob;
      }),
    },
    {
      name: 'interpret-not-sorted-by-prob',
      group: 'academic',
      operations: [...OPS.interpret],
      deviation: 'forbidden',
      description: 'interpret returns interpretations by ascending prob instead of descending',
      response: editOk((body) => {
        if (!Array.isArray(body.interpretations)) return;
        body.interpretations = objects(body.interpretations).sort((a, b) => Number(a.prob) - Number(b.prob));
      }),
    },
    {
      name: 'interpret-count-ignored',
      group: 'academic',
      operations: [...OPS.interpret],
      deviation: 'forbidden',
      description: 'interpret ignores count and always returns up to the default 10 interpretations',
      request: dropParams('count'),
    },
    {
      name: 'interpret-offset-ignored',
      group: 'academic',
      operations: [...OPS.interpret],
      deviation: 'forbidden',
      description: 'interpret ignores offset: every page starts at the first interpretation',
      request: dropParams('offset'),
    },
    {
      name: 'interpret-query-not-echoed',
      group: 'academic',
      operations: [...OPS.interpret],
      deviation: 'forbidden',
      description: 'interpret echoes the query without its last word instead of the query as sent',
      response: editOk((body, ctx) => {
        const words = (ctx.params.query ?? '').trim().split(/\s+/);
        body.query = words.slice(0, -1).join(' ');
      }),
    },
    {
      name: 'interpret-output-rejected-by-evaluate',
      group: 'academic',
      operations: [...OPS.interpret],
      deviation: 'forbidden',
      description:
        'interpret output expressions name attributes as academic#<attr> (the parse form), which evaluate rejects with 400',
      response: editOk((body) => {
        for (const interpretation of objects(body.interpretations)) {
          for (const rule of objects(interpretation.rules)) {
            const output = child(rule, 'output');
            if (typeof output?.value === 'string') output.value = namespaceAttributes(output.value);
          }
        }
      }),
    },
    {
      name: 'interpret-timeout-ignored',
      group: 'academic',
      operations: [...OPS.interpret],
      deviation: 'forbidden',
      description:
        'interpret ignores timeout: with a timeout it answers after 2.5 s with every interpretation and aborted false',
      request(ctx) {
        if (ctx.params.timeout === undefined) return;
        delete ctx.params.timeout;
        timeoutsDropped.add(ctx);
      },
      async response(ctx, result) {
        if (!timeoutsDropped.has(ctx)) return result;
        await sleep(2500);
        return editOk((body) => {
          body.aborted = false;
        })(ctx, result);
      },
    },
    {
      name: 'interpret-aborted-not-boolean',
      group: 'academic',
      operations: [...OPS.interpret],
      deviation: 'forbidden',
      description: 'interpret sends aborted as the string "false"/"true" instead of a boolean',
      response: editOk((body) => {
        if ('aborted' in body) body.aborted = String(body.aborted);
      }),
    },
    {
      name: 'interpret-post-ignores-offset',
      group: 'academic',
      operations: ['interpretPost'],
      deviation: 'forbidden',
      description: 'POST interpret ignores offset (GET honours it), so GET and POST disagree',
      request: postOnly(dropParams('offset')),
    },
    {
      name: 'evaluate-entity-prob-missing',
      group: 'academic',
      operations: [...OPS.evaluate],
      deviation: 'forbidden',
      description: 'evaluate drops the documented prob field of every entity',
      response: editOk((body) => {
        for (const entity of objects(body.entities)) delete entity.prob;
      }),
    },
    {
      name: 'evaluate-year-as-string',
      group: 'academic',
      operations: [...OPS.evaluate],
      deviation: 'forbidden',
      description: 'evaluate returns the Y attribute as a string ("2013") instead of a number',
      response: editOk((body) => {
        for (const entity of objects(body.entities)) if (entity.Y !== undefined) entity.Y = String(entity.Y);
      }),
    },
    {
      name: 'evaluate-offset-off-by-one',
      group: 'academic',
      operations: [...OPS.evaluate],
      deviation: 'forbidden',
      description: 'evaluate treats offset as 1-based: offset=n starts at entity n-1, so consecutive pages overlap',
      request: (ctx) => shiftIntParam(ctx.params, 'offset', -1),
    },
    {
      name: 'evaluate-count-ignored',
      group: 'academic',
      operations: [...OPS.evaluate],
      deviation: 'forbidden',
      description: 'evaluate ignores count and always returns up to the default 10 entities',
      request: dropParams('count'),
    },
    {
      name: 'evaluate-orderby-ignored',
      group: 'academic',
      operations: [...OPS.evaluate],
      deviation: 'forbidden',
      description: 'evaluate ignores orderby: entities stay in descending prob order',
      request: dropParams('orderby'),
    },
    {
      name: 'evaluate-orderby-reversed',
      group: 'academic',
      operations: [...OPS.evaluate],
      deviation: 'forbidden',
      description: 'evaluate sorts orderby=name:asc descending and name:desc ascending',
      request(ctx) {
        if (ctx.params.orderby !== undefined) ctx.params.orderby = flipDirection(ctx.params.orderby);
      },
    },
    {
      name: 'evaluate-attributes-ignored',
      group: 'academic',
      operations: [...OPS.evaluate],
      deviation: 'forbidden',
      description: 'evaluate ignores attributes and returns every paper attribute',
      request(ctx) {
        ctx.params.attributes = PAPER_ATTRIBUTES.join(',');
      },
    },
    {
      name: 'evaluate-attributes-case-insensitive',
      group: 'academic',
      operations: [...OPS.evaluate],
      deviation: 'forbidden',
      description: 'evaluate matches attribute names case-insensitively (attributes=ti returns Ti)',
      request(ctx) {
        const requested = ctx.params.attributes;
        if (requested === undefined) return;
        ctx.params.attributes = requested
          .split(',')
          .map((name) => ATTRIBUTE_BY_LOWER.get(name.trim().toLowerCase()) ?? name)
          .join(',');
      },
    },
    {
      name: 'evaluate-expr-not-echoed',
      group: 'academic',
      operations: [...OPS.evaluate],
      deviation: 'forbidden',
      description: 'evaluate echoes expr lower-cased (normalised) instead of as sent',
      response: editOk((body) => {
        if (typeof body.expr === 'string') body.expr = body.expr.toLowerCase();
      }),
    },
    {
      name: 'evaluate-aborted-as-string',
      group: 'academic',
      operations: [...OPS.evaluate],
      deviation: 'forbidden',
      description: 'evaluate sends aborted as the string "false" (an expected field present with the wrong type)',
      response: editOk((body) => {
        if (typeof body.aborted === 'boolean') body.aborted = String(body.aborted);
      }),
    },
    {
      name: 'evaluate-post-ignores-offset',
      group: 'academic',
      operations: ['evaluatePost'],
      deviation: 'forbidden',
      description: 'POST evaluate ignores offset (GET honours it), so GET and POST disagree',
      request: postOnly(dropParams('offset')),
    },
    {
      name: 'calchistogram-not-sorted-by-count',
      group: 'academic',
      operations: [...OPS.calchistogram],
      deviation: 'forbidden',
      description:
        'calchistogram lists histogram entries by ascending count (the order is sample-level: a warning unless --strict)',
      response: editOk((body) => {
        for (const histogram of histograms(body)) {
          histogram.histogram = objects(histogram.histogram).sort((a, b) => Number(a.count) - Number(b.count));
        }
      }),
    },
    {
      name: 'calchistogram-num-entities-off-by-one',
      group: 'academic',
      operations: [...OPS.calchistogram],
      deviation: 'forbidden',
      description: 'calchistogram num_entities is one more than the number of entities evaluate matches',
      response: editOk((body) => {
        if (typeof body.num_entities === 'number') body.num_entities += 1;
      }),
    },
    {
      name: 'calchistogram-total-count-off-by-one',
      group: 'academic',
      operations: [...OPS.calchistogram],
      deviation: 'forbidden',
      description: 'calchistogram total_count is one more than the value instances among the matching entities',
      response: editOk((body) => {
        for (const histogram of histograms(body)) {
          if (typeof histogram.total_count === 'number') histogram.total_count += 1;
        }
      }),
    },
    {
      name: 'calchistogram-distinct-values-off-by-one',
      group: 'academic',
      operations: [...OPS.calchistogram],
      deviation: 'forbidden',
      description: 'calchistogram distinct_values is one more than the distinct values among the matching entities',
      response: editOk((body) => {
        for (const histogram of histograms(body)) {
          if (typeof histogram.distinct_values === 'number') histogram.distinct_values += 1;
        }
      }),
    },
    {
      name: 'calchistogram-count-as-string',
      group: 'academic',
      operations: [...OPS.calchistogram],
      deviation: 'forbidden',
      description: 'calchistogram returns histogram[].count as a string instead of a number',
      response: editOk((body) => {
        for (const histogram of histograms(body)) {
          for (const entry of objects(histogram.histogram)) entry.count = String(entry.count);
        }
      }),
    },
    {
      name: 'calchistogram-expr-not-echoed',
      group: 'academic',
      operations: [...OPS.calchistogram],
      deviation: 'forbidden',
      description: 'calchistogram echoes expr lower-cased (normalised) instead of as sent',
      response: editOk((body) => {
        if (typeof body.expr === 'string') body.expr = body.expr.toLowerCase();
      }),
    },
    {
      name: 'calchistogram-count-ignored',
      group: 'academic',
      operations: [...OPS.calchistogram],
      deviation: 'forbidden',
      description: 'calchistogram ignores count: each histogram has up to the default 10 entries',
      request: dropParams('count'),
    },
    {
      name: 'calchistogram-post-ignores-count',
      group: 'academic',
      operations: ['calchistogramPost'],
      deviation: 'forbidden',
      description: 'POST calchistogram ignores count (GET honours it), so GET and POST disagree',
      request: postOnly(dropParams('count')),
    },
    {
      name: 'interpret-missing-query-accepted',
      group: 'academic',
      operations: [...OPS.interpret],
      deviation: 'forbidden',
      description:
        "interpret without the required query answers 200 {query:'',interpretations:[]} instead of 400 Bad Argument",
      response(ctx, result) {
        if (result.status !== 400 || (ctx.params.query ?? '').trim() !== '') return result;
        return withBody({ status: 200 }, { query: '', interpretations: [], aborted: false });
      },
    },
    {
      name: 'evaluate-invalid-count-accepted',
      group: 'academic',
      operations: [...OPS.evaluate],
      deviation: 'forbidden',
      description:
        'evaluate ignores a count that is not a non-negative integer (count=-1, count=abc) instead of 400 Bad Argument',
      request(ctx) {
        const count = ctx.params.count;
        if (count !== undefined && !/^\s*\d+\s*$/.test(count)) delete ctx.params.count;
      },
    },
    {
      name: 'interpret-401-wrong-code',
      group: 'academic',
      operations: [...OPS.interpret],
      deviation: 'forbidden',
      description: "interpret 401 carries error.code 'Unauthorized' instead of 'Unspecified'",
      response: editStatus(401, (body) => {
        const error = child(body, 'error');
        if (error) error.code = 'Unauthorized';
      }),
    },
    {
      name: 'academic-400-code-not-bad-argument',
      group: 'academic',
      operations: ACADEMIC_SEARCH,
      deviation: 'forbidden',
      description:
        "interpret/evaluate/calchistogram answer 400 with error.code 'BadArgument' instead of 'Bad Argument'",
      response: editStatus(400, (body) => {
        const error = child(body, 'error');
        if (error) error.code = 'BadArgument';
      }),
    },
    {
      name: 'academic-400-message-only',
      group: 'academic',
      operations: ACADEMIC_SEARCH,
      deviation: 'forbidden',
      description:
        'interpret/evaluate/calchistogram answer 400 with a bare {message} body instead of {error:{code,message}}',
      response: editStatus(400, (body) => {
        return { message: child(body, 'error')?.message ?? '' };
      }),
    },
  ];
}
