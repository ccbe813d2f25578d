// The requests a comparison sends to both deployments: the live battery's requests (with the ids
// the current deployment returned to earlier ones), the second page of every paged operation, and
// a seeded set of generated requests whose chained inputs are read from the current deployment.

import { allocate, casesFor, type GeneratedCase } from '../contracts/generative/cases.ts';
import { callOptionsOf } from '../contracts/generative/engine.ts';
import { poolsFromPapers } from '../contracts/generative/pools.ts';
import { mergePools } from '../contracts/generative/values.ts';
import type { BatteryRequest } from '../drift/battery.ts';
import { getOperation, OPERATION_IDS, type OperationInfo } from '../openapi/spec.ts';

/** One request sent alike to both deployments. */
export interface CompareRequest {
  /** What the report calls it: `evaluateGet: success`, `evaluateGet case 7 (expr:wide-or)`. */
  name: string;
  operation: OperationInfo;
  /** The concrete path, path parameters filled in and encoded. */
  path: string;
  /** The query string as sent, without `?` ('' for none). */
  query: string;
  /** A POST body as sent. */
  body?: string;
  contentType?: string;
  /** False for the requests that test the missing key. */
  withKey: boolean;
}

/** A battery request as a comparison request (form fields become the body). */
export function fromBattery(request: BatteryRequest): CompareRequest {
  const form = request.form ? new URLSearchParams(request.form).toString() : undefined;
  return {
    name: request.name,
    operation: request.operation,
    path: request.path,
    query: new URLSearchParams(request.query).toString(),
    ...(form !== undefined ? { body: form, contentType: 'application/x-www-form-urlencoded' } : {}),
    withKey: request.key !== 'none',
  };
}

/** The next page of a battery success request: the same request with the offset one page further, or none. */
export function secondPage(request: BatteryRequest): CompareRequest | undefined {
  const paging = request.operation.paging;
  if (!paging) return undefined;
  const values = request.form ?? request.query;
  const size = values[paging.count] ?? '5';
  const next = { ...values, [paging.offset]: size };
  return fromBattery({
    ...request,
    name: request.name.replace(/success$/, 'second page'),
    ...(request.form ? { form: next } : { query: next }),
  });
}

/** A generated case as a comparison request (its chain already resolved). */
export function fromCase(c: GeneratedCase): CompareRequest {
  const op = getOperation(c.operationId)!;
  const options = callOptionsOf(c);
  let path = op.path;
  for (const [name, value] of Object.entries(options.pathParams ?? {})) {
    path = path.replace(`{${name}}`, encodeURIComponent(value));
  }
  const post = op.method === 'post';
  return {
    name: `${c.operationId} case ${c.index} (${c.kind})`,
    operation: op,
    path,
    query: post ? '' : (options.rawQuery ?? ''),
    ...(post
      ? {
          body: String(options.rawBody ?? ''),
          contentType: options.contentType ?? 'application/x-www-form-urlencoded',
        }
      : {}),
    withKey: true,
  };
}

/** Reads another operation's answer from the current deployment (for chains); undefined when unusable. */
export type ChainReader = (operationId: string, params: Record<string, string>) => Promise<unknown>;

function objects(value: unknown): Record<string, unknown>[] {
  return Array.isArray(value)
    ? value.filter((item): item is Record<string, unknown> => typeof item === 'object' && item !== null)
    : [];
}

function usable(value: unknown): value is string {
  return typeof value === 'string' && /^[^\u0000-\u001f\u007f]{1,200}$/.test(value) && value.trim() !== '';
}

/**
 * Puts the current deployment's answer into a chained case: an interpret output as the expression
 * of evaluate or calchistogram, an event id of hot events into documents, an entity into related
 * events, a web page URL into URL preview. Without a usable answer the case keeps its own values.
 */
export async function resolveChain(c: GeneratedCase, read: ChainReader): Promise<GeneratedCase> {
  const chain = c.chain;
  if (!chain) return c;
  if (chain.kind === 'interpret-output') {
    const body = (await read('interpretGet', { query: chain.query, complete: chain.complete, count: '10' })) as
      | Record<string, unknown>
      | undefined;
    const outputs = objects(body?.interpretations)
      .map((interpretation) => objects(interpretation.rules)[0]?.output)
      .map((output) =>
        typeof output === 'object' && output !== null ? (output as { value?: unknown }).value : undefined,
      )
      .filter(usable);
    if (outputs.length === 0) return c;
    const expr = outputs[chain.pick % outputs.length]!;
    return { ...c, params: c.params.map((param) => (param.name === 'expr' ? { ...param, value: expr } : param)) };
  }
  if (chain.kind === 'hot-event') {
    const body = (await read('hotEvents', { date: chain.date, $top: '20' })) as Record<string, unknown> | undefined;
    const events = objects(body?.value);
    if (chain.use === 'eventId') {
      const ids = events.map((event) => event.eventId).filter(usable);
      return ids.length === 0 ? c : { ...c, pathParams: { event_id: ids[chain.pick % ids.length]! } };
    }
    const names = events
      .flatMap((event) => (Array.isArray(event.relatedEntities) ? event.relatedEntities : []))
      .filter(usable);
    if (names.length === 0) return c;
    const id = names[chain.pick % names.length]!.replace(/ /g, '_');
    return {
      ...c,
      params: [...c.params.filter((param) => param.name !== 'wikipediaid'), { name: 'wikipediaid', value: id }],
    };
  }
  const body = (await read('answerSearch', { q: chain.q, mkt: 'en-US', count: '10' })) as
    | Record<string, unknown>
    | undefined;
  const pages = objects((body?.webPages as Record<string, unknown> | undefined)?.value);
  const urls = pages.map((page) => page.url).filter((url): url is string => usable(url) && /^https?:\/\//.test(url));
  if (urls.length === 0) return c;
  return { ...c, params: [{ name: 'q', value: urls[chain.pick % urls.length]! }] };
}

/**
 * The seeded generated cases, `total` spread over every operation in proportion to its kinds of
 * case, interleaved operation by operation. Values come from the built-in pools and the papers of
 * the current deployment's evaluate answer (when given).
 */
export function generatedCases(seed: number, total: number, papers: Record<string, unknown>[] = []): GeneratedCase[] {
  if (total <= 0) return [];
  const pools = mergePools(poolsFromPapers(papers));
  const perOperation = [...allocate(total, OPERATION_IDS)].map(([id, count]) => casesFor(seed, id, count, pools));
  const out: GeneratedCase[] = [];
  for (let i = 0; out.length < perOperation.reduce((sum, list) => sum + list.length, 0); i++) {
    for (const list of perOperation) if (i < list.length) out.push(list[i]!);
  }
  return out;
}
