import type { Fault, HandlerResult, RequestContext } from './types.ts';

/** A JSON object as the transforms see it. */
export type JsonObject = { [key: string]: unknown };

/** The operation ids of each group, as named in the spec. */
export const OPS = {
  interpret: ['interpretGet', 'interpretPost'],
  evaluate: ['evaluateGet', 'evaluatePost'],
  calchistogram: ['calchistogramGet', 'calchistogramPost'],
  similarity: ['similarityGet', 'similarityPost'],
  answerSearch: ['answerSearch'],
  urlPreview: ['urlPreview'],
  events: ['hotEvents', 'relatedEvents'],
  eventKnowledge: ['hotEvents', 'relatedEvents', 'eventDocuments'],
} as const;

/** Every operation id of the interface. */
export const ALL_OPERATIONS: string[] = [
  ...OPS.interpret,
  ...OPS.evaluate,
  ...OPS.calchistogram,
  ...OPS.similarity,
  ...OPS.answerSearch,
  ...OPS.urlPreview,
  ...OPS.eventKnowledge,
];

type ResponseHook = NonNullable<Fault['response']>;

/** True for a plain JSON object. */
export function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The object elements of `value` when it is an array, else none. */
export function objects(value: unknown): JsonObject[] {
  return Array.isArray(value) ? value.filter(isObject) : [];
}

/** The object at `key` of `value`, or undefined. */
export function child(value: unknown, key: string): JsonObject | undefined {
  if (!isObject(value)) return undefined;
  const inner = value[key];
  return isObject(inner) ? inner : undefined;
}

/**
 * The JSON value a result carries: its `body`, or its pre-serialized `rawBody` parsed. Always a
 * fresh copy, so a transform never touches the clean server's cached data.
 */
export function jsonOf(result: HandlerResult): unknown {
  if (result.rawBody !== undefined) {
    try {
      return JSON.parse(result.rawBody.toString());
    } catch {
      return undefined;
    }
  }
  return result.body === undefined ? undefined : structuredClone(result.body);
}

/** The result with `body` as its JSON body (any pre-serialized rawBody dropped). */
export function withBody(result: HandlerResult, body: unknown): HandlerResult {
  const { rawBody: _dropped, ...rest } = result;
  return { ...rest, body };
}

/**
 * A response hook that rewrites the JSON object body of answers with the given status. `edit`
 * changes its copy in place or returns a replacement body.
 */
export function editStatus(status: number, edit: (body: JsonObject, ctx: RequestContext) => unknown): ResponseHook {
  return (ctx, result) => {
    if (result.status !== status) return result;
    const body = jsonOf(result);
    if (!isObject(body)) return result;
    const replaced = edit(body, ctx);
    return withBody(result, replaced === undefined ? body : replaced);
  };
}

/** A response hook that rewrites the JSON object body of 200 answers (see editStatus). */
export function editOk(edit: (body: JsonObject, ctx: RequestContext) => unknown): ResponseHook {
  return editStatus(200, edit);
}

/** A response hook that maps the bare-number body of a 200 similarity answer. */
export function editNumber(map: (value: number, ctx: RequestContext) => unknown): ResponseHook {
  return (ctx, result) => {
    if (result.status !== 200) return result;
    const value = jsonOf(result);
    return typeof value === 'number' ? withBody(result, map(value, ctx)) : result;
  };
}

/** Moves a non-negative integer paging parameter by `delta` (never below 0), leaving absent or invalid values alone. */
export function shiftIntParam(params: Record<string, string>, name: string, delta: number): void {
  const raw = params[name];
  if (raw === undefined || !/^\s*\d+\s*$/.test(raw)) return;
  params[name] = String(Math.max(0, Number(raw) + delta));
}

/** A request hook that drops the named parameters, as a server that ignores them would. */
export function dropParams(...names: string[]): NonNullable<Fault['request']> {
  return (ctx) => {
    for (const name of names) delete ctx.params[name];
  };
}

/** A request hook that applies `hook` only to POST requests. */
export function postOnly(hook: NonNullable<Fault['request']>): NonNullable<Fault['request']> {
  return (ctx) => {
    if (ctx.method === 'POST') hook(ctx);
  };
}

/** Resolves after `ms` milliseconds (the timer does not keep the process alive). */
export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}
