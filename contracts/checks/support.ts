import type { ApiResponse, CallOptions, Operation } from '../api.ts';
import { show } from '../failure.ts';
import { objects } from '../json.ts';
import { instantOf } from '../properties/responses.ts';
import type { ResponseProperty } from '../properties/types.ts';
import type { TestData } from '../test-data.ts';
import type { CheckContext } from './registry.ts';

/** The operation's id without its GET/POST suffix: interpret, evaluate, calchistogram, similarity... */
export function baseName(op: Operation): string {
  return op.operationId.replace(/(Get|Post)$/, '');
}

/** True for interpret, evaluate and calchistogram (GET and POST). */
export function isAcademicSearch(op: Operation): boolean {
  return ['interpret', 'evaluate', 'calchistogram'].includes(baseName(op));
}

/** A request of `op` the interface says must succeed, built from discovered data. */
export async function validRequest(op: Operation, data: TestData): Promise<CallOptions> {
  switch (baseName(op)) {
    case 'interpret':
      return { params: { ...(await data.interpretQuery()) } };
    case 'evaluate':
      return { params: { expr: await data.broadExpr(), attributes: 'Id,Ti,Y', count: '5' } };
    case 'calchistogram':
      return { params: { expr: await data.broadExpr(), attributes: 'Y' } };
    case 'similarity': {
      // Two related texts (a title, and its first words joined to another title), so the score is
      // neither 0 nor 1 and any rounding or distortion shows.
      const [a, b] = await data.titles();
      return { params: { s1: a, s2: `${a.split(' ').slice(0, 3).join(' ')} ${b}` } };
    }
    case 'answerSearch':
      return { params: { q: await data.answerQuery(), mkt: 'en-US' } };
    case 'urlPreview':
      return { params: { q: await data.previewUrl() } };
    case 'hotEvents':
      return { params: { date: (await data.hotDate()).date } };
    case 'relatedEvents':
      return { params: { wikipediaid: await data.wikipediaId() } };
    case 'eventDocuments':
      return { pathParams: { event_id: await data.eventId() } };
    default:
      throw new Error(`no valid request known for ${op.operationId}`);
  }
}

/**
 * Judges a fixed request's answer by an invariant: skipped with `nothing` when the answer carries
 * nothing the invariant reads, failed with its first violation.
 */
export function judgeByProperty(
  ctx: CheckContext,
  property: ResponseProperty,
  params: Record<string, string>,
  response: ApiResponse,
  nothing: string,
): void {
  const exchange = {
    operationId: ctx.op.operationId,
    params,
    pathParams: {},
    status: response.status,
    json: response.json,
  };
  if (!property.reads(exchange)) ctx.skip(nothing);
  const [first] = property.judge(exchange);
  if (first) ctx.fail(first.title, first, response);
}

/** Reads the value at a JSON pointer (`/histograms/0/histogram`), or undefined. */
export { at } from '../properties/responses.ts';

/** Fails unless the response has the expected status. */
export function expectStatus(ctx: CheckContext, response: ApiResponse, want: number, why: string): void {
  ctx.expect(
    response.status === want,
    `${why}: expected status ${want}`,
    () => ({
      received: `status ${response.status}`,
      documented: `status ${want}`,
    }),
    response,
  );
}

/** The body as an object (or an empty one). */
export function body(response: ApiResponse): Record<string, unknown> {
  const json = response.json;
  return json !== null && typeof json === 'object' && !Array.isArray(json) ? (json as Record<string, unknown>) : {};
}

/**
 * Asserts the documented "bad parameter" answer of the group: status 400 (event knowledge, which
 * documents none: any 4xx), and that the error names the parameter: the academic message, or an
 * answer search / URL preview error's `parameter`. The body's shape (`Bad Argument`,
 * `ErrorResponse`, `InvalidRequest`) is the schema's business: the request fixture reports a
 * wrong shape once, under response-matches-spec, and this check does not report it again. A body
 * too broken to say which parameter it names is left to that same finding.
 */
export function expectParameterRejected(
  ctx: CheckContext,
  response: ApiResponse,
  parameter: string,
  why: string,
): void {
  const group = ctx.op.group;
  if (group === 'eventKnowledge') {
    ctx.expect(
      response.status >= 400 && response.status < 500,
      `${why}: expected a 4xx`,
      () => ({
        received: `status ${response.status}`,
        documented: 'a 4xx (the interface documents no error body for this case)',
      }),
      response,
    );
    return;
  }
  expectStatus(ctx, response, 400, why);
  const json = body(response);
  if (group === 'academic') {
    const message = (json.error as { message?: unknown } | undefined)?.message;
    if (typeof message !== 'string') return;
    ctx.expect(
      message.toLowerCase().includes(parameter.toLowerCase()),
      `${why}: error message must name the parameter`,
      () => ({
        received: `error.message ${show(message)}`,
        documented: `a message that names the parameter '${parameter}' (interface 7.1)`,
        pointer: '/error/message',
      }),
      response,
    );
  } else if (group === 'answerSearch' || group === 'urlPreview') {
    const errors = objects(json.errors);
    const named = errors.map((error) => error.parameter).filter((name) => typeof name === 'string');
    if (named.length === 0) return;
    ctx.expect(
      named.some((name) => (name as string).toLowerCase() === parameter.toLowerCase()),
      `${why}: the error must name the offending parameter`,
      () => ({
        received: `parameters named: ${show(named)}`,
        documented: `an error whose parameter is '${parameter}' (interface 7.3)`,
        pointer: '/errors',
      }),
      response,
    );
  }
}

/** The instant of an ISO 8601 UTC timestamp in milliseconds (any form RFC 3339 gives one), or NaN. */
export function parseUtc(text: unknown): number {
  return instantOf(text);
}
