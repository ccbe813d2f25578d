import { randomBytes } from 'node:crypto';
import { ANSWER_URL } from '../answer-search.ts';
import { ALL_OPERATIONS, child, editOk, isObject, type JsonObject, jsonOf, OPS, objects } from './transform.ts';
import type { Fault, HandlerResult, RequestContext } from './types.ts';

// How the real service answered where a strict reading of the interface would fail it
// (../shared/facts.md, "How real deployments answered"). Each variant is conforming; together,
// in the order below, they are the `real` profile.

const ACADEMIC_SEARCH = [...OPS.interpret, ...OPS.evaluate, ...OPS.calchistogram];

/** The id the real service gave ranking items that reference the facts answer: one path segment more than `facts.id`. */
export const REAL_FACTS_RANKING_ID = `${ANSWER_URL}knowledge/#Facts`;

/** The interpret echo as the real service wrote it: lower-cased, punctuation removed (whitespace kept). */
export function normalizeEcho(query: string): string {
  return query.toLowerCase().replace(/\p{P}/gu, '');
}

/** Fixed-date days a facts query may ask about, by the words that name them. */
const DAYS: { words: RegExp; name: string; month: number; day: number }[] = [
  { words: /\bvalentine'?s?(?: day)?\b/, name: "Valentine's Day", month: 1, day: 14 },
  { words: /\bchristmas(?: day)?\b/, name: 'Christmas Day', month: 11, day: 25 },
  { words: /\bhalloween\b/, name: 'Halloween', month: 9, day: 31 },
  { words: /\bnew year'?s?(?: day)?\b/, name: "New Year's Day", month: 0, day: 1 },
];
/** Facts about years before this one are told in the past tense (the corpus's crawl dates are in 2026). */
const PRESENT_YEAR = 2026;
const WEEKDAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];
const MONTHS = [
  'January',
  'February',
  'March',
  'April',
  'May',
  'June',
  'July',
  'August',
  'September',
  'October',
  'November',
  'December',
];

/**
 * The one fact a facts query asks for, or undefined when the query is not one. A facts query names
 * a fixed-date day and a year (`valentines 2016`); the real service answered it with facts only.
 */
export function factFor(query: string): { description: string; subjectName: string } | undefined {
  const lower = query.toLowerCase();
  const day = DAYS.find((candidate) => candidate.words.test(lower));
  const year = /\b(1[6-9]\d\d|2\d\d\d)\b/.exec(lower)?.[1];
  if (!day || !year) return undefined;
  const date = new Date(Date.UTC(Number(year), day.month, day.day));
  const verb = Number(year) < PRESENT_YEAR ? 'was' : 'is';
  return {
    description: `${day.name} ${verb} on ${WEEKDAYS[date.getUTCDay()]}, ${MONTHS[day.month]} ${day.day}, ${year}.`,
    subjectName: `${day.name} ${year}`,
  };
}

/** `value` with `logprob` (natural log of its prob) placed right after `prob`. */
function withLogprob(value: JsonObject): JsonObject {
  if (typeof value.prob !== 'number' || !(value.prob > 0)) return value;
  const out: JsonObject = {};
  for (const [key, inner] of Object.entries(value)) {
    out[key] = inner;
    if (key === 'prob') out.logprob = Math.log(value.prob);
  }
  return out;
}

/**
 * Serializes JSON the way the real service's writer did: every `prob` in exponent form. Interpret
 * and evaluate write `2.266e-007` (lower case, three-digit exponent), calchistogram
 * `1.0991207675E-06` (upper case, two digits). The digits are JavaScript's shortest round trip,
 * so each number parses back to the same value.
 */
export function stringifyWithExponents(value: unknown, style: 'lower' | 'upper'): string {
  const exponent = (n: number) => {
    const [mantissa, power] = n.toExponential().split('e') as [string, string];
    const sign = power.startsWith('-') ? '-' : '+';
    const digits = power.replace(/^[-+]/, '').padStart(style === 'lower' ? 3 : 2, '0');
    return `${mantissa}${style === 'lower' ? 'e' : 'E'}${sign}${digits}`;
  };
  const write = (node: unknown, key: string | undefined): string => {
    if (typeof node === 'number' && key === 'prob' && Number.isFinite(node)) return exponent(node);
    if (Array.isArray(node)) return `[${node.map((item) => write(item, undefined)).join(',')}]`;
    if (isObject(node)) {
      const parts: string[] = [];
      for (const [name, inner] of Object.entries(node)) {
        if (inner !== undefined) parts.push(`${JSON.stringify(name)}:${write(inner, name)}`);
      }
      return `{${parts.join(',')}}`;
    }
    return JSON.stringify(node) ?? 'null';
  };
  return write(value, undefined);
}

/** Headers of the real deployments: every answer had the first two; answer search and URL preview also the Bing ones. */
function realHeaders(ctx: RequestContext): Record<string, string> {
  const headers: Record<string, string> = { 'x-powered-by': 'ASP.NET', 'access-control-allow-origin': '*' };
  if (ctx.group === 'answerSearch' || ctx.group === 'urlPreview') {
    const trace = randomBytes(16).toString('hex').toUpperCase();
    // Only a well-formed market is echoed: any other text could not go into a header.
    const market = /^[a-z]{2}-[a-z]{2}$/i.test(ctx.params.mkt ?? '') ? ctx.params.mkt! : 'en-US';
    headers['BingAPIs-Market'] = market;
    headers['BingAPIs-TraceId'] = trace;
    headers['X-MSEdge-ClientID'] = randomBytes(16).toString('hex').toUpperCase();
    headers['X-MSEdge-Ref'] = `Ref A: ${trace} Ref B: AMS04EDGE0812 Ref C: ${new Date().toISOString()}`;
  }
  return headers;
}

/** The `real` variants, one per point of facts.md, in the order the profile applies them. */
function realVariants(): Fault[] {
  return [
    {
      name: 'real-aborted-omitted',
      group: 'academic',
      operations: ACADEMIC_SEARCH,
      deviation: 'real',
      description:
        'interpret, evaluate and calchistogram omit aborted unless the time budget cut the answer short; interpret carries timed_out and timed_out_count instead',
      response: editOk((body, ctx) => {
        const aborted = body.aborted === true;
        if (!aborted) delete body.aborted;
        if (ctx.operationId.startsWith('interpret')) {
          body.timed_out = aborted;
          body.timed_out_count = aborted ? 1 : 0;
        }
      }),
    },
    {
      name: 'real-score-fields',
      group: 'academic',
      operations: ACADEMIC_SEARCH,
      deviation: 'real',
      description:
        'interpretations, evaluate entities (whatever attributes asked for) and histogram entries carry logprob (natural log of prob) beside prob',
      response: editOk((body) => {
        if (Array.isArray(body.interpretations)) body.interpretations = objects(body.interpretations).map(withLogprob);
        if (Array.isArray(body.entities)) body.entities = objects(body.entities).map(withLogprob);
        for (const histogram of objects(body.histograms)) {
          histogram.histogram = objects(histogram.histogram).map(withLogprob);
        }
      }),
    },
    {
      name: 'real-facts-minimal',
      group: 'answerSearch',
      operations: [...OPS.answerSearch],
      deviation: 'real',
      description:
        "answer search facts carry only id and value; a facts query ('valentines 2016') is answered with facts only: no webPages, no entities, a ranking with mainline only",
      response: editOk((body, ctx) => {
        const facts = child(body, 'facts');
        if (!facts) return undefined;
        const fact = factFor(ctx.params.q ?? '');
        if (!fact) return { ...body, facts: { id: facts.id, value: facts.value } };
        return {
          _type: body._type,
          queryContext: body.queryContext,
          facts: { id: facts.id, value: [fact] },
          rankingResponse: { mainline: { items: [{ answerType: 'Facts', value: { id: facts.id } }] } },
        };
      }),
    },
    {
      name: 'real-ranking-id-path',
      group: 'answerSearch',
      operations: [...OPS.answerSearch],
      deviation: 'real',
      description: `answer search ranking items reference the facts answer as ${REAL_FACTS_RANKING_ID} while facts.id is ${ANSWER_URL}#Facts`,
      response: editOk((body) => {
        const factsId = child(body, 'facts')?.id;
        const ranking = child(body, 'rankingResponse');
        for (const group of ['mainline', 'sidebar', 'pole']) {
          for (const item of objects(child(ranking, group)?.items)) {
            const value = child(item, 'value');
            if (value && value.id === factsId) value.id = REAL_FACTS_RANKING_ID;
          }
        }
      }),
    },
    {
      name: 'real-echo-normalized',
      group: 'academic',
      operations: [...OPS.interpret],
      deviation: 'real',
      description: 'interpret echoes query lower-cased with punctuation removed',
      response: editOk((body) => {
        if (typeof body.query === 'string') body.query = normalizeEcho(body.query);
      }),
    },
    {
      name: 'real-headers',
      group: 'all',
      operations: [...ALL_OPERATIONS],
      deviation: 'real',
      description:
        'every answer carries x-powered-by and access-control-allow-origin: *; answer search and URL preview also BingAPIs-Market, BingAPIs-TraceId, X-MSEdge-ClientID and X-MSEdge-Ref',
      response: (ctx, result) => ({ ...result, headers: { ...result.headers, ...realHeaders(ctx) } }),
    },
    // Last: it writes the body as text, so no later step may parse and re-serialize it.
    {
      name: 'real-exponent-numbers',
      group: 'academic',
      operations: ACADEMIC_SEARCH,
      deviation: 'real',
      description:
        'interpret and evaluate write prob like 2.266e-007, calchistogram like 1.0991207675E-06 (the same numbers, in exponent form)',
      response: (ctx, result) => {
        if (result.status !== 200) return result;
        const body = jsonOf(result);
        if (!isObject(body)) return result;
        const style = ctx.operationId.startsWith('calchistogram') ? 'upper' : 'lower';
        const { body: _body, ...rest } = result;
        return { ...rest, rawBody: stringifyWithExponents(body, style) } satisfies HandlerResult;
      },
    },
  ];
}

/** The `real` fault family: one variant per point of facts.md, plus `real-profile`, all of them at once. */
export function realFaults(): Fault[] {
  const variants = realVariants();
  const operations = ALL_OPERATIONS.filter((id) => variants.some((variant) => variant.operations.includes(id)));
  const profile: Fault = {
    name: 'real-profile',
    group: 'all',
    operations,
    deviation: 'real',
    description: `answers the way the real service did on every point at once: ${variants.map((variant) => variant.name).join(', ')}`,
    async response(ctx, result) {
      let answer = result;
      for (const variant of variants) {
        if (variant.response && variant.operations.includes(ctx.operationId)) {
          answer = await variant.response(ctx, answer);
        }
      }
      return answer;
    },
  };
  return [...variants, profile];
}
