import { loadSpec, OPERATIONS, type OperationInfo } from '../openapi/spec.ts';
import { deref, isObject } from './schema.ts';

/** Which key a battery request carries. */
export type KeyChoice = 'full' | 'none' | 'exhausted';

/** One request of the live battery. */
export interface BatteryRequest {
  /** `evaluateGet: missing expr`: the case name the report shows. */
  name: string;
  operation: OperationInfo;
  /** The concrete path (path parameters filled in). */
  path: string;
  query: Record<string, string>;
  /** Form fields of a POST body. */
  form?: Record<string, string>;
  key: KeyChoice;
}

/** What earlier responses taught the battery (values that make later requests hit real data). */
export interface BatteryContext {
  author?: string;
  eventId?: string;
}

/** A battery case: builds its request from what is known so far, and may learn from its 200 body. */
export interface BatteryCase {
  name: string;
  operationId: string;
  build(context: BatteryContext): BatteryRequest | undefined;
  learn?(body: unknown, context: BatteryContext): void;
}

const EVALUATE_ATTRIBUTES =
  'Id,Ti,W,Y,D,CC,ECC,AA.AuN,AA.AuId,AA.AfN,AA.AfId,AA.S,F.FN,F.FId,J.JN,J.JId,C.CN,C.CId,RId,DOI';
const UNKNOWN_EVENT = '0000000000000000000000000000dead';
const FACTS_QUERY = 'valentines 2016';

/** Parameter values that reach real data on a deployment; spec examples fill the rest. */
function successValues(op: OperationInfo, context: BatteryContext): Record<string, string> {
  const values: Record<string, string> = {};
  for (const param of op.parameters) {
    const example = (param as { example?: unknown }).example;
    if (param.required && example !== undefined) values[param.name] = String(example);
  }
  switch (op.operationId) {
    case 'interpretGet':
    case 'interpretPost':
      // Capitalized, so an echo the target normalizes shows as echo-differs.
      return { query: context.author ? `Papers by ${context.author}` : 'Papers by', complete: '0', count: '5' };
    case 'evaluateGet':
    case 'evaluatePost':
      return { expr: 'Y>1900', attributes: EVALUATE_ATTRIBUTES, count: '5' };
    case 'calchistogramGet':
    case 'calchistogramPost':
      return { expr: 'Y>1900', attributes: 'Y,F.FN', count: '5' };
    case 'similarityGet':
    case 'similarityPost':
      return { s1: 'knowledge graph embeddings', s2: 'embedding of knowledge graphs' };
    case 'answerSearch':
      return { q: values.q ?? 'knowledge graph', mkt: 'en-US', count: '5' };
    case 'urlPreview':
      return { q: values.q ?? 'https://example.org/articles/knowledge-graphs' };
    case 'hotEvents':
      return { date: values.date ?? '2026-11-01', $top: '5' };
    case 'relatedEvents':
      return { wikipediaid: values.wikipediaid ?? 'Barack_Obama', $top: '5' };
    default:
      return values;
  }
}

function fillPath(op: OperationInfo, context: BatteryContext, eventId?: string): string {
  return op.path.replace(/\{([^}]+)\}/g, (_match, name: string) =>
    encodeURIComponent(name === 'event_id' ? (eventId ?? context.eventId ?? UNKNOWN_EVENT) : 'x'),
  );
}

/** Splits values into the query or the form body, as the operation takes them. */
function request(op: OperationInfo, name: string, values: Record<string, string>, key: KeyChoice, path: string) {
  const isForm = op.method === 'post' && op.requestMediaType !== undefined;
  return {
    name: `${op.operationId}: ${name}`,
    operation: op,
    path,
    query: isForm ? {} : values,
    ...(isForm ? { form: values } : {}),
    key,
  } satisfies BatteryRequest;
}

function requiredNames(op: OperationInfo): string[] {
  const fromQuery = op.parameters.filter((param) => param.required && param.in === 'query').map((param) => param.name);
  const form = deref(loadSpec(), op.requestSchema);
  const fromForm = isObject(form) && Array.isArray(form.required) ? form.required.map(String) : [];
  return [...fromQuery, ...fromForm];
}

/**
 * The live battery, in order: one success case per operation (academic and event cases first,
 * so later cases can use what they return), a facts query for answer search (`valentines 2016`,
 * the query of the documented facts-only sample), then the documented error cases the spec lets a
 * client provoke: each required parameter missing (where 400 is documented), a negative page
 * size, an invalid URL, an unknown event, no key (401) and an exhausted key (403, when one is known).
 */
export function buildBattery(options: { exhaustedKey: boolean }): BatteryCase[] {
  const cases: BatteryCase[] = [];
  const ops = [...OPERATIONS];
  const byId = (id: string) => ops.find((op) => op.operationId === id);
  const order = ['evaluateGet', 'interpretGet', 'hotEvents'];
  const sorted = [
    ...order.map(byId).filter((op): op is OperationInfo => Boolean(op)),
    ...ops.filter((op) => !order.includes(op.operationId)),
  ];

  for (const op of sorted) {
    cases.push({
      name: `${op.operationId}: success`,
      operationId: op.operationId,
      build: (context) => request(op, 'success', successValues(op, context), 'full', fillPath(op, context)),
      learn: (body, context) => learn(op.operationId, body, context),
    });
  }
  const search = byId('answerSearch');
  if (search) {
    // The documented facts-only sample answered this query; a target may answer it the same way.
    cases.push({
      name: 'answerSearch: facts query',
      operationId: search.operationId,
      build: (context) =>
        request(
          search,
          'facts query',
          { ...successValues(search, context), q: FACTS_QUERY },
          'full',
          fillPath(search, context),
        ),
    });
  }
  for (const op of ops) {
    const has = (status: number) => String(status) in op.responses;
    if (has(400)) {
      for (const name of requiredNames(op)) {
        cases.push({
          name: `${op.operationId}: missing ${name}`,
          operationId: op.operationId,
          build: (context) => {
            const { [name]: _dropped, ...rest } = successValues(op, context);
            return request(op, `missing ${name}`, rest, 'full', fillPath(op, context));
          },
        });
      }
      const paging = op.paging?.count;
      if (paging) {
        cases.push({
          name: `${op.operationId}: negative ${paging}`,
          operationId: op.operationId,
          build: (context) =>
            request(
              op,
              `negative ${paging}`,
              { ...successValues(op, context), [paging]: '-1' },
              'full',
              fillPath(op, context),
            ),
        });
      }
      if (op.operationId === 'urlPreview') {
        cases.push({
          name: 'urlPreview: invalid URL',
          operationId: op.operationId,
          build: (context) => request(op, 'invalid URL', { q: 'not a url' }, 'full', fillPath(op, context)),
        });
      }
    }
    if (has(404) && op.path.includes('{event_id}')) {
      cases.push({
        name: `${op.operationId}: unknown event`,
        operationId: op.operationId,
        build: (context) =>
          request(op, 'unknown event', successValues(op, context), 'full', fillPath(op, context, UNKNOWN_EVENT)),
      });
    }
    if (has(401)) {
      cases.push({
        name: `${op.operationId}: no key`,
        operationId: op.operationId,
        build: (context) => request(op, 'no key', successValues(op, context), 'none', fillPath(op, context)),
      });
    }
    if (has(403) && options.exhaustedKey) {
      cases.push({
        name: `${op.operationId}: exhausted key`,
        operationId: op.operationId,
        build: (context) =>
          request(op, 'exhausted key', successValues(op, context), 'exhausted', fillPath(op, context)),
      });
    }
  }
  return cases;
}

function learn(operationId: string, body: unknown, context: BatteryContext): void {
  const record = (typeof body === 'object' && body !== null ? body : {}) as Record<string, unknown>;
  if (operationId === 'evaluateGet' && Array.isArray(record.entities)) {
    const authors = (record.entities as Array<{ AA?: Array<{ AuN?: unknown }> }>).flatMap((entity) => entity.AA ?? []);
    const author = authors.find((item) => typeof item.AuN === 'string')?.AuN;
    if (typeof author === 'string') context.author = author;
  }
  if (operationId === 'hotEvents' && Array.isArray(record.value)) {
    const id = (record.value as Array<{ eventId?: unknown }>).find(
      (event) => typeof event.eventId === 'string',
    )?.eventId;
    if (typeof id === 'string') context.eventId = id;
  }
}
