// Sends generated requests through the request fixture (contracts/api.ts: deadlines, size cap,
// schema judgement, 429 retries, the transport breaker), judges each, keeps one finding per
// operation, check, status and error signature, and shrinks each finding to a minimal request.
import { getOperation, type OperationInfo } from '../../openapi/spec.ts';
import {
  type Api,
  type ApiResponse,
  type CallOptions,
  FrontServerRefused,
  ResponseUnusable,
  TargetBroken,
} from '../api.ts';
import { canonicalPairs, judgedByAnswer } from '../coverage/classify.ts';
import { intentOf, isSameValueItem } from '../coverage/inputs.ts';
import { caseItems } from '../coverage/plan.ts';
import { type Failure, findingKey, show } from '../failure.ts';
import { field, objects } from '../json.ts';
import {
  type Exchange,
  exchangeOf,
  judgeResponse,
  propertiesReading,
  type Relation,
  type RelationViolation,
  type Reply,
  relationsFor,
  type Send,
  type Violation,
  WARN_PROPERTIES,
} from '../properties/index.ts';
import { nonUtcTimestamps } from '../properties/responses.ts';
import { encodePairs, type GeneratedCase, type Intent, pairsOf } from './cases.ts';
import { type Expression, parseExpression, shrinkExpression } from './expression.ts';
import { judgeCase, seedLine } from './judge.ts';
import { isHttpUrl } from './values.ts';
import { worldText } from './world.ts';

/** How a run of generated requests is carried out. */
export interface EngineSettings {
  /** A fresh request fixture for one case (`judge: false` for the reads of a chain). */
  newApi(judge?: boolean): Api;
  /** Requests in flight at once. */
  concurrency: number;
  /** No new case starts after this time (performance.now() milliseconds). */
  deadlineAt?: number;
  /** Awaited before every request (--max-rps). */
  pace?: () => Promise<void>;
  /** The base URL a finding's seed line names (its target); none for the embedded reference server. */
  target?: string;
  /** Most requests spent shrinking one finding. */
  shrinkAttempts: number;
  /** Longest time spent shrinking one finding (slow answers make every attempt slow), in milliseconds. */
  shrinkMs: number;
  /** Checks switched off (--exclude-checks): their findings are dropped. */
  disabledChecks?: ReadonlySet<string>;
  /** The only checks whose properties judge valid requests (--checks); undefined: every one. */
  propertyChecks?: ReadonlySet<string>;
  /** Checks whose relations are not run (a budgeted plan holds no cell of theirs: a relation costs requests). */
  relationsOff?: ReadonlySet<string>;
  /**
   * Relations (and chains) started per operation and relation, from the valid requests that rank
   * highest for it (the longest inputs for GET/POST, the largest offsets for paging...); 0: none.
   */
  relationsPerOperation?: number;
  /** --strict: a property's warning fails. */
  strict?: boolean;
  /** Called about once a second. */
  onProgress?(progress: EngineProgress): void;
}

/** Where a run stands. */
export interface EngineProgress {
  elapsedMs: number;
  cases: number;
  requests: number;
  findings: number;
}

/** What a run found. */
export interface EngineResult {
  /** Distinct findings, each shrunk (transport failures excepted) and carrying its seed line. */
  findings: Failure[];
  /** How many cases each finding was seen in, by findingKey. */
  seenIn: Record<string, number>;
  /** The intent of the case each finding was first seen in, by findingKey. */
  intents: Record<string, Intent>;
  /** Cases sent and judged, by intent. */
  cases: Record<Intent, number>;
  /** Every request sent: cases, chain reads and shrinking. */
  requests: number;
  /** Cases not sent: the deadline passed or the target (or their operation) stopped answering. */
  notSent: number;
  /** Why cases were not sent, when the target or an operation stopped answering. */
  stopped: string[];
  /** Operation ids read (cases and chains). */
  reads: Set<string>;
  /**
   * `<check> <operation label>` of every invariant that judged an answer carrying what it reads, and
   * of every relation that got the answers it compares.
   */
  judged: Set<string>;
  /** The coverage items the answers judged (contracts/coverage): the classes each case carried, as its answer speaks for them. */
  items: Set<string>;
  /** Open items the target refused (a 4xx to a request of that class alone): a plan sends them alone. */
  refused: Set<string>;
  /**
   * For each `judged` entry, the items the first planned case that judged it was sent for: planning
   * them again plans the requests that judge the cell (what a budgeted plan relies on).
   */
  judgedBy: Record<string, string[]>;
  /**
   * The relative tolerance numbers were compared within, by operation label, where answers differed
   * beyond a double's rounding and a repeat of the same request taught how much they vary (operations
   * absent: SCORE_TOLERANCE).
   */
  tolerances: Record<string, number>;
  durationMs: number;
}

/** The request fixture's title for a status the spec does not document (api.ts). */
const UNDOCUMENTED_STATUS = 'status not documented for this operation';

/** Fixture checks whose findings are not shrunk: every attempt would wait out a deadline or a huge body again. */
const TRANSPORT = new Set(['responds-within-timeout', 'connection-completes', 'body-within-size-cap']);

function requireOperation(operationId: string): OperationInfo {
  const op = getOperation(operationId);
  if (!op) throw new Error(`unknown operation ${operationId}`);
  return op;
}

/** A paced rate limit of at most `maxRps` requests per second, or undefined for none. */
export function pacer(maxRps: number | undefined): (() => Promise<void>) | undefined {
  if (!maxRps || !Number.isFinite(maxRps)) return undefined;
  let next = 0;
  return async () => {
    const now = performance.now();
    const at = Math.max(now, next);
    next = at + 1000 / maxRps;
    if (at > now) await new Promise((resolve) => setTimeout(resolve, at - now));
  };
}

/** The request fixture options that send a case as generated (its encoding, repeats, content type). */
export function callOptionsOf(c: GeneratedCase): CallOptions {
  const op = requireOperation(c.operationId);
  const encoded = encodePairs(pairsOf(c.params), c.encoding);
  // Every generated request is judged like a deliberately invalid one by the fixture: an
  // undocumented 4xx is then left to the generative checks, which know what the input deserved.
  const options: CallOptions = {
    intent: 'error',
    ...(c.pathParams ? { pathParams: c.pathParams } : {}),
    ...(c.pathEscaped ? { pathEscaped: true } : {}),
    ...(c.headers ? { headerForms: c.headers } : {}),
  };
  if (op.method === 'post') {
    options.rawBody = c.body ?? encoded;
    if (c.contentType) options.contentType = c.contentType;
  } else {
    options.rawQuery = encoded;
  }
  return options;
}

/** The check of the schema, which judges the timestamps a relation reads too. */
const SCHEMA_CHECK = 'response-matches-spec';

/** Whether an item is a valid class (a same-value request judged 2xx also judges the valid classes it carries). */
function intentOfValid(item: string): boolean {
  return intentOf(item) === 'valid';
}

/** One case sent: its response (undefined when unusable) and everything found about it. */
interface Sent {
  response?: ApiResponse;
  findings: Failure[];
  /** The coverage items its answer judged. */
  items: string[];
  /** The relations the answer can start (valid requests answered 200). */
  relations: { relation: Relation; exchange: Exchange }[];
}

/** A relation waiting for its turn: started from the answer of a case. */
interface Pending {
  rank: number;
  relation: Relation;
  exchange: Exchange;
  case: GeneratedCase;
  response: ApiResponse;
}

/** A value from another answer that is safe to send as an id: printable, not too long. */
function usableId(value: unknown): value is string {
  return typeof value === 'string' && /^[^\u0000-\u001f\u007f]{1,200}$/.test(value) && value.trim() !== '';
}

/** Runs generated cases and judges them; see EngineResult. */
export class GenerativeEngine {
  private readonly started = performance.now();
  private readonly byKey = new Map<string, { finding: Failure; case: GeneratedCase; elapsedMs: number }>();
  private readonly seenIn: Record<string, number> = {};
  private readonly reads = new Set<string>();
  private readonly judged = new Set<string>();
  private readonly judgedItems = new Set<string>();
  private readonly refusedItems = new Set<string>();
  private readonly judgedBy = new Map<string, { index: number; items: string[] }>();
  private readonly stopped = new Map<string, string>();
  private requests = 0;
  private notSent = 0;
  private readonly cases: Record<Intent, number> = { positive: 0, negative: 0, edge: 0 };
  private targetDown: string | undefined;
  private readonly pending = new Map<string, Pending[]>();
  /** Per relation and operation, the best answer that can show what the check's own test shows (Relation.decisive). */
  private readonly decisive = new Map<string, Pending>();
  private readonly tolerances: Record<string, number> = {};

  constructor(private readonly settings: EngineSettings) {}

  /** Whether a property of `check` judges this run's answers. */
  private readonly enabled = (check: string): boolean =>
    !this.settings.disabledChecks?.has(check) && (this.settings.propertyChecks?.has(check) ?? true);

  /** A property's violation as a finding on the case's operation, with the case's request (curl, excerpt). */
  private propertyFinding(check: string, violation: Violation, response: ApiResponse, c: GeneratedCase): Failure {
    const warn = violation.warn || WARN_PROPERTIES.has(check);
    return {
      check,
      operation: response.operation,
      title: violation.title,
      received: violation.received,
      documented: violation.documented,
      ...(violation.pointer !== undefined ? { pointer: violation.pointer } : {}),
      excerpt: response.excerpt,
      curl: response.curl,
      seed: seedLine(c, undefined, this.settings.target),
      origin: 'check',
      via: 'property',
      ...(warn && !this.settings.strict ? { level: 'warn' as const } : {}),
    };
  }

  /** Sends a relation's request, judged by nobody (the relation judges it); undefined when no usable answer came. */
  private readonly relationSend: Send = async (operationId, request) => {
    const api = this.settings.newApi(false);
    try {
      const op = requireOperation(operationId);
      const raw = request.escaped ? encodePairs(Object.entries(request.params), 'escaped') : undefined;
      const response = await this.call(api, op, {
        params: request.params,
        ...(raw === undefined ? {} : op.method === 'post' ? { rawBody: raw } : { rawQuery: raw }),
        ...(request.pathParams && Object.keys(request.pathParams).length > 0 ? { pathParams: request.pathParams } : {}),
      });
      return { operationId, status: response.status, json: response.json, curl: response.curl } satisfies Reply;
    } catch (error) {
      if (error instanceof ResponseUnusable || error instanceof FrontServerRefused) return undefined;
      throw error;
    }
  };

  /** Runs one relation from a case's answer; its violations as findings on the case's operation. */
  private async relate(
    relation: Relation,
    exchange: Exchange,
    c: GeneratedCase,
    response: ApiResponse,
  ): Promise<Failure[]> {
    let sends = 0;
    let answered = 0;
    const replies: Reply[] = [];
    const send: Send = async (operationId, request) => {
      sends++;
      const reply = await this.relationSend(operationId, request);
      if (reply) {
        answered++;
        replies.push(reply);
      }
      return reply;
    };
    const violations: RelationViolation[] = await relation.run(exchange, send, (agreement) => {
      if (!agreement.learned) return;
      const label = response.operation;
      this.tolerances[label] = Math.max(this.tolerances[label] ?? 0, agreement.tolerance);
    });
    // A relation that got every answer it compares judged its check on the case's operation.
    if (sends > 0 && answered === sends && (relation.decisive?.(exchange) ?? true))
      this.markJudged(`${relation.check} ${response.operation}`, c);
    return [
      ...violations.map((violation) => ({
        ...this.propertyFinding(relation.check, violation, response, c),
        ...(c.items ? { items: c.items } : {}),
      })),
      ...this.readTimestamps(replies, c),
    ];
  }

  /**
   * The timestamps the interface calls UTC in the answers a relation read, judged on the operation
   * that answered (a relation's reads are otherwise judged by nobody: an operation's own tests judge
   * its answers, and the relation may read answers none of them asks for, such as the documents of
   * every event of a generated page).
   */
  private readTimestamps(replies: readonly Reply[], c: GeneratedCase): Failure[] {
    if (this.settings.disabledChecks?.has(SCHEMA_CHECK)) return [];
    const out: Failure[] = [];
    for (const reply of replies) {
      if (reply.status !== 200) continue;
      const [first] = nonUtcTimestamps(reply.operationId, reply.json);
      if (!first) continue;
      out.push({
        check: SCHEMA_CHECK,
        operation: requireOperation(reply.operationId).label,
        title: 'timestamp not in UTC',
        received: `${first.pointer} ${show(first.value)}`,
        documented: 'an ISO 8601 UTC timestamp, ending in Z or +00:00 (interface 2.5, 2.7; RFC 3339, section 5.6)',
        pointer: first.pointer,
        curl: reply.curl,
        seed: seedLine(c),
        origin: 'check',
      });
    }
    return out;
  }

  private async call(api: Api, op: OperationInfo, options: CallOptions): Promise<ApiResponse> {
    await this.settings.pace?.();
    this.requests++;
    try {
      return await api.call(op, options);
    } finally {
      for (const id of api.reads) this.reads.add(id);
    }
  }

  /** Puts another operation's answer into a chained case; without a usable answer the case keeps its own values. */
  private async resolveChain(c: GeneratedCase): Promise<GeneratedCase> {
    const chain = c.chain;
    if (!chain) return c;
    const api = this.settings.newApi(false);
    try {
      if (chain.kind === 'interpret-output') {
        const response = await this.call(api, requireOperation('interpretGet'), {
          params: { query: chain.query, complete: chain.complete, count: '10' },
        });
        const outputs = objects(field(response.json, 'interpretations'))
          .map((interpretation) => field(objects(field(interpretation, 'rules'))[0], 'output'))
          .map((output) => field(output, 'value'))
          .filter((value): value is string => typeof value === 'string')
          .map((value) => parseExpression(value))
          .flatMap((parsed) => (parsed.ok ? [parsed.tree] : []));
        if (outputs.length === 0) return c;
        const tree = outputs[chain.pick % outputs.length]!;
        return {
          ...c,
          params: c.params.map((param) => (param.name === 'expr' ? { ...param, value: { tree } } : param)),
        };
      }
      if (chain.kind === 'hot-event') {
        const response = await this.call(api, requireOperation('hotEvents'), {
          params: { date: chain.date, $top: '20' },
        });
        const events = objects(field(response.json, 'value'));
        if (chain.use === 'eventId') {
          const ids = events.map((event) => event.eventId).filter(usableId);
          return ids.length === 0 ? c : { ...c, pathParams: { event_id: ids[chain.pick % ids.length]! } };
        }
        const names = events
          .flatMap((event) => (Array.isArray(event.relatedEntities) ? event.relatedEntities : []))
          .filter(usableId);
        if (names.length === 0) return c;
        const id = names[chain.pick % names.length]!.replace(/ /g, '_');
        return {
          ...c,
          params: [...c.params.filter((param) => param.name !== 'wikipediaid'), { name: 'wikipediaid', value: id }],
        };
      }
      const response = await this.call(api, requireOperation('answerSearch'), {
        params: { q: chain.q, mkt: 'en-US', count: '10' },
      });
      const urls = objects(field(field(response.json, 'webPages'), 'value'))
        .map((page) => page.url)
        .filter((url): url is string => typeof url === 'string' && url.length < 2000 && isHttpUrl(url));
      if (urls.length === 0) return c;
      return { ...c, params: [{ name: 'q', value: urls[chain.pick % urls.length]! }] };
    } catch (error) {
      // A chain read that fails, or that kgate no longer sends (the other operation was given up on),
      // leaves the case with its own values; that operation's own tests judge it.
      if (error instanceof ResponseUnusable || error instanceof FrontServerRefused || error instanceof TargetBroken)
        return c;
      throw error;
    }
  }

  /**
   * Sends one case and judges the answer (the fixture's findings, the generative checks', and for
   * a valid request every property that applies). `relationCheck` (while shrinking) runs that
   * check's relations at once; otherwise they are returned, to be run within the budget.
   */
  private async send(c: GeneratedCase, relationCheck?: string): Promise<Sent> {
    let op = requireOperation(c.operationId);
    let api = this.settings.newApi();
    let response: ApiResponse | undefined;
    try {
      response = await this.call(api, op, callOptionsOf(c));
    } catch (error) {
      if (error instanceof FrontServerRefused) {
        // A GET too long for a server in front of the interface: its input goes through the POST
        // variant, as the interface says long inputs do, and is judged there.
        const post = c.operationId.endsWith('Get') ? getOperation(c.operationId.replace(/Get$/, 'Post')) : undefined;
        if (!post) return { findings: [], relations: [], items: [] };
        c = { ...c, operationId: post.operationId };
        op = post;
        api = this.settings.newApi();
        api.front.resent++;
        try {
          response = await this.call(api, op, callOptionsOf(c));
        } catch (again) {
          if (!(again instanceof ResponseUnusable || again instanceof FrontServerRefused)) throw again;
        }
      } else if (!(error instanceof ResponseUnusable)) throw error;
    }
    const own = response ? judgeCase(c, op.group, response) : [];
    const disabled = this.settings.disabledChecks;
    // The classes the case carried for its intent (caseItems), as far as its answer speaks for them;
    // open classes packed together and refused speak for none (each is sent again alone: unpacked).
    const refusedPack =
      c.parts !== undefined && response !== undefined && (response.status < 200 || response.status >= 300);
    const items = response && !refusedPack ? judgedByAnswer(caseItems(c, true), response.status) : [];
    // One defect, one failure: a 5xx is no-server-error's, also where the group documents no 5xx at all.
    const fixture = api.findings.filter(
      (finding) => !(response && response.status >= 500 && finding.title === UNDOCUMENTED_STATUS),
    );
    const findings = [...fixture, ...own]
      .filter((finding) => !disabled?.has(finding.check))
      .map((finding) => (items.length > 0 && !finding.items ? { ...finding, items } : finding));
    const relations: Sent['relations'] = [];
    // A valid request's answer is judged by every property; so is an answer to values written
    // another way (a same-value class: +3, 007), as the answer to their canonical spelling.
    const sameValues =
      c.intent === 'edge' && items.length > 0 && items.every((item) => isSameValueItem(item) || intentOfValid(item));
    if (response && (c.intent === 'positive' || sameValues) && c.body === undefined && response.status === 200) {
      const pairs = c.intent === 'positive' ? pairsOf(c.params) : canonicalPairs(c.operationId, pairsOf(c.params));
      const exchange = exchangeOf(c.operationId, pairs, c.pathParams, response.status, response.json);
      for (const { check, violation } of judgeResponse(exchange, this.enabled))
        findings.push({ ...this.propertyFinding(check, violation, response, c), ...(items.length ? { items } : {}) });
      for (const check of propertiesReading(exchange, this.enabled))
        this.markJudged(`${check} ${response.operation}`, c);
      for (const relation of relationsFor(
        exchange,
        (check) => this.enabled(check) && !this.settings.relationsOff?.has(check),
      )) {
        if (relationCheck === undefined) relations.push({ relation, exchange });
        else if (relation.check === relationCheck)
          findings.push(...(await this.relate(relation, exchange, c, response)));
      }
    }
    return { response, findings, relations, items };
  }

  /** Notes that a property or relation judged a cell on a case's answer (and which planned case did, first). */
  private markJudged(key: string, c: GeneratedCase): void {
    this.judged.add(key);
    const known = this.judgedBy.get(key);
    if (c.assigned && (!known || c.index < known.index)) this.judgedBy.set(key, { index: c.index, items: c.assigned });
  }

  /**
   * Keeps a finding of a case. The earliest case of the seed's order to show it is the one shrunk,
   * whichever answer arrived first: the same seed shrinks the same case.
   */
  private keep(findings: Failure[], c: GeneratedCase, elapsedMs: number): void {
    for (const finding of findings) {
      const key = findingKey(finding);
      this.seenIn[key] = (this.seenIn[key] ?? 0) + 1;
      const kept = this.byKey.get(key);
      if (!kept || earlier(c, kept.case)) this.byKey.set(key, { finding, case: c, elapsedMs });
    }
  }

  /**
   * Runs the relations the cases' answers can start: per operation and relation, those of the
   * highest-ranking answers (ties: the earlier case), at most relationsPerOperation of them.
   */
  private async runRelations(): Promise<void> {
    const limit = this.settings.relationsPerOperation ?? 0;
    // Where none of the best answers of a relation is decisive, the best decisive one is related
    // too: its cell is then judged by the generated requests, not by the check's own test again.
    const chosen = [...this.pending.entries()].flatMap(([key, list]) => {
      const best = list.slice(0, limit);
      const decisive = this.decisive.get(key);
      return decisive && !best.some((entry) => entry.relation.decisive?.(entry.exchange)) ? [...best, decisive] : best;
    });
    let next = 0;
    const worker = async () => {
      for (let i = next++; i < chosen.length; i = next++) {
        if (this.targetDown) return;
        if (this.settings.deadlineAt !== undefined && performance.now() >= this.settings.deadlineAt) return;
        const { relation, exchange, case: c, response } = chosen[i]!;
        try {
          this.keep(await this.relate(relation, exchange, c, response), c, response.elapsedMs);
        } catch (error) {
          if (!(error instanceof TargetBroken)) throw error;
          if (/target stopped answering|requests to this target failed/.test(error.message))
            this.targetDown = error.message;
        }
      }
    };
    await Promise.all(Array.from({ length: Math.max(1, this.settings.concurrency) }, worker));
  }

  /** Sends one case, counts it, and keeps its new findings. */
  private async runCase(c: GeneratedCase): Promise<void> {
    const resolved = await this.resolveChain(c);
    const { findings, response, relations, items } = await this.send(resolved);
    this.cases[c.intent]++;
    for (const item of items) this.judgedItems.add(item);
    if (resolved.intent === 'edge' && !resolved.parts && response && response.status >= 400 && response.status < 500)
      for (const item of items) this.refusedItems.add(item);
    // A packed request of open classes that was refused: any one of them may be why, so each is
    // judged on its own (a 5xx needs no unpacking: the shrinker drops the packed inputs).
    if (c.parts && response && response.status < 500 && (response.status < 200 || response.status >= 300))
      for (const part of c.parts) await this.runCase({ ...part, index: c.index });
    this.keep(findings, resolved, response?.elapsedMs ?? 0);
    if (!response || (this.settings.relationsPerOperation ?? 0) <= 0) return;
    const limit = this.settings.relationsPerOperation!;
    for (const { relation, exchange } of relations) {
      const key = `${relation.check}\u0000${resolved.operationId}`;
      const rank = relation.priority(exchange);
      if (relation.decisive?.(exchange)) {
        const best = this.decisive.get(key);
        if (!best || rank > best.rank || (rank === best.rank && resolved.index < best.case.index))
          this.decisive.set(key, { rank, relation, exchange, case: resolved, response });
      }
      // Only the best `limit` are kept, so a long run holds a bounded number of answers.
      const list = [...(this.pending.get(key) ?? []), { rank, relation, exchange, case: resolved, response }]
        .sort((a, b) => b.rank - a.rank || a.case.index - b.case.index)
        .slice(0, Math.min(limit, relation.limit ?? limit));
      this.pending.set(key, list);
    }
  }

  /** Simpler variants of a case that stay of the same intent: optional parameters dropped, the expression and long texts shrunk. */
  private candidates(c: GeneratedCase): GeneratedCase[] {
    if (c.body !== undefined) return [];
    const required = new Set(requireOperation(c.operationId).requiredInputs);
    const out: GeneratedCase[] = [];
    const replace = (i: number, value: string | Expression) => ({
      ...c,
      params: c.params.map((param, j) => (j === i ? { ...param, value } : param)),
    });
    c.params.forEach((param, i) => {
      if (!param.focus && !required.has(param.name)) out.push({ ...c, params: c.params.filter((_, j) => j !== i) });
    });
    c.params.forEach((param, i) => {
      // A value of the world loses one part at a time (a class it shows), keeping some text.
      const world = param.world;
      if (world && world.parts.length > 1) {
        world.parts.forEach((_, k) => {
          const parts = world.parts.filter((_, j) => j !== k);
          if (parts.every((part) => part.trim() === '')) return;
          const next = { ...world, parts };
          out.push({
            ...c,
            params: c.params.map((other, j) => (j === i ? { ...other, value: worldText(next), world: next } : other)),
          });
        });
        return;
      }
      if (typeof param.value !== 'string') {
        for (const smaller of shrinkExpression(param.value)) out.push(replace(i, smaller));
      } else if (!param.focus && param.value.length > 40) {
        out.push(replace(i, param.value.slice(0, Math.ceil(param.value.length / 2)).trim()));
      }
    });
    return out;
  }

  /** Shrinks the case behind a finding: the smallest variant that still produces the same finding. */
  private async shrink(entry: { finding: Failure; case: GeneratedCase; elapsedMs: number }): Promise<Failure> {
    const key = findingKey(entry.finding);
    let current: { finding: Failure; case: GeneratedCase } = entry;
    let steps = 0;
    let attempts = 0;
    // The run's deadline bounds shrinking too, give or take a last attempt.
    const until = Math.min(performance.now() + this.settings.shrinkMs, (this.settings.deadlineAt ?? Infinity) + 1_000);
    // An answer slower than the whole shrinking time would let not even one attempt finish in time.
    const slow = entry.elapsedMs >= this.settings.shrinkMs;
    if (!TRANSPORT.has(entry.finding.check) && !slow) {
      search: for (;;) {
        for (const candidate of this.candidates(current.case)) {
          if (attempts >= this.settings.shrinkAttempts || performance.now() >= until || this.targetDown) break search;
          attempts++;
          let sent: Sent;
          try {
            sent = await this.send(candidate, entry.finding.check);
          } catch (error) {
            if (error instanceof TargetBroken) break search;
            throw error;
          }
          const same = sent.findings.find((finding) => findingKey(finding) === key);
          if (same) {
            current = { finding: same, case: candidate };
            steps++;
            continue search;
          }
        }
        break;
      }
    }
    const detail = TRANSPORT.has(entry.finding.check)
      ? 'not shrunk: every attempt would wait out the deadline again'
      : slow
        ? `not shrunk: the answer took ${Math.round(entry.elapsedMs)} ms`
        : steps > 0
          ? `shrunk in ${steps} step(s), ${attempts} request(s)`
          : undefined;
    return { ...current.finding, seed: seedLine(entry.case, detail, this.settings.target) };
  }

  /** Sends the cases with bounded concurrency until they run out, the deadline passes or the target stops answering. */
  async run(cases: Iterable<GeneratedCase>): Promise<EngineResult> {
    const iterator = cases[Symbol.iterator]();
    const progressTimer = this.settings.onProgress
      ? setInterval(() => this.settings.onProgress!(this.progress()), 1000)
      : undefined;
    const worker = async () => {
      for (;;) {
        const next = iterator.next();
        if (next.done) return;
        const c = next.value;
        if (this.targetDown || this.stopped.has(c.operationId)) {
          this.notSent++;
          continue;
        }
        if (this.settings.deadlineAt !== undefined && performance.now() >= this.settings.deadlineAt) {
          this.notSent++;
          continue;
        }
        try {
          await this.runCase(c);
        } catch (error) {
          if (!(error instanceof TargetBroken)) throw error;
          this.notSent++;
          if (/target stopped answering|requests to this target failed/.test(error.message))
            this.targetDown = error.message;
          else this.stopped.set(c.operationId, error.message);
        }
      }
    };
    try {
      await Promise.all(Array.from({ length: Math.max(1, this.settings.concurrency) }, worker));
      await this.runRelations();
      // Findings are shrunk side by side (as many at once as cases were sent), in their order of discovery.
      const entries = [...this.byKey.values()];
      const findings: Failure[] = new Array(entries.length);
      let next = 0;
      const shrinker = async () => {
        for (let i = next++; i < entries.length; i = next++) findings[i] = await this.shrink(entries[i]!);
      };
      await Promise.all(Array.from({ length: Math.max(1, this.settings.concurrency) }, shrinker));
      return {
        findings,
        seenIn: this.seenIn,
        intents: Object.fromEntries([...this.byKey].map(([key, entry]) => [key, entry.case.intent])),
        cases: this.cases,
        requests: this.requests,
        notSent: this.notSent,
        stopped: [...new Set([...(this.targetDown ? [this.targetDown] : []), ...this.stopped.values()])],
        reads: this.reads,
        judged: this.judged,
        items: this.judgedItems,
        refused: this.refusedItems,
        judgedBy: Object.fromEntries([...this.judgedBy].map(([key, entry]) => [key, entry.items])),
        tolerances: this.tolerances,
        durationMs: performance.now() - this.started,
      };
    } finally {
      clearInterval(progressTimer);
    }
  }

  private progress(): EngineProgress {
    const cases = this.cases.positive + this.cases.negative + this.cases.edge;
    return { elapsedMs: performance.now() - this.started, cases, requests: this.requests, findings: this.byKey.size };
  }
}

/** Whether case `a` comes before case `b` in the seed's order (operation, then index). */
function earlier(a: GeneratedCase, b: GeneratedCase): boolean {
  return a.operationId === b.operationId ? a.index < b.index : a.operationId < b.operationId;
}
