import type { IncomingMessage, ServerResponse } from 'node:http';
import { getOperation } from '../openapi/spec.ts';
import { answerSearch, type WebCorpus } from './answer-search.ts';
import type { KeyTable } from './auth.ts';
import { type ApiGroup, errorResult, MESSAGES } from './errors.ts';
import type { EventCorpus } from './events.ts';
import type { Fault, HandlerResult, RequestContext, ServerSettings } from './faults/types.ts';
import { FormDecodeError, parseForm } from './form.ts';
import { readIntegers } from './numbers.ts';
import { TokenBuckets } from './rate-limit.ts';
import { checkRequest } from './request-check.ts';
import { groupOfPath, matchPath, ROUTE_BY_ID, type Route } from './routes.ts';
import { type PreviewCorpus, urlPreview } from './url-preview.ts';

/** What the HTTP layer needs from the academic engine (see reference/academic/engine.ts). */
export interface AcademicPort {
  interpret(params: Record<string, string>): { status: number; body: unknown };
  evaluate(params: Record<string, string>): { status: number; body: unknown };
  calchistogram(params: Record<string, string>): { status: number; body: unknown };
  similarity(params: Record<string, string>): { status: number; body: unknown };
}

/** Limit on POST bodies of interpret, evaluate and calchistogram (similarity uses the bodyLimit setting). */
export const FORM_BODY_LIMIT = 4 * 1024 * 1024;
/** Hard cap on a similarity body when a fault disables the body limit, so memory stays bounded. */
export const UNLIMITED_BODY_CAP = 64 * 1024 * 1024;
/**
 * Most bytes of a refused body read and dropped before the answer, and the longest time spent on
 * it. A front server (nginx, a gateway) sends the whole body before it reads the answer: a server
 * that answers and closes while the body still arrives resets the connection under it, and the
 * front turns the interface's own 400 into its 502. Past either bound the answer goes out at once
 * and the connection is closed, as before.
 */
export const DRAIN_MAX_BYTES = 16 * 1024 * 1024;
export const DRAIN_MAX_MS = 3000;

const JSON_TYPE = 'application/json; charset=utf-8';
const KEY_HEADER = 'ocp-apim-subscription-key';
const CACHEABLE_ACADEMIC = 2000;
const QUERY_CACHE_SIZE = 5000;

/** Everything one request pipeline needs: data, keys, settings and the fault catalogue. */
export interface Pipeline {
  engine: AcademicPort;
  web: WebCorpus;
  previews: PreviewCorpus;
  events: EventCorpus;
  keys: KeyTable;
  settings: ServerSettings;
  faults: ReadonlyMap<string, Fault>;
  /** The catalogue of legitimate variations (`../variations/`), served under `/variations/<name>` as faults are under `/faults/<name>`. */
  variations?: ReadonlyMap<string, Fault>;
  /** A fault applied at the root URL (the server's profile); undefined for the clean server. */
  profile?: Fault;
  quiet: boolean;
}

type Ctx = RequestContext & { route: Route };

/** The node:http request listener of the reference server. */
export function createListener(pipeline: Pipeline): (req: IncomingMessage, res: ServerResponse) => void {
  const buckets = new TokenBuckets();
  const academicCache = new Map<string, string>();
  const queryCache = new Map<string, string>();
  const faultSettings = new Map<string, ServerSettings>();
  const variations = pipeline.variations ?? new Map<string, Fault>();
  for (const fault of [...pipeline.faults.values(), ...variations.values()]) {
    faultSettings.set(fault.name, { ...pipeline.settings, ...fault.settings });
  }
  const listing = (catalogue: ReadonlyMap<string, Fault>) =>
    JSON.stringify(
      [...catalogue.values()].map(({ name, group, operations, deviation, description, ...rest }) => ({
        name,
        group,
        operations,
        deviation,
        description,
        ...('allowedBy' in rest ? { allowedBy: rest.allowedBy } : {}),
      })),
    );
  const catalogues = {
    faults: { entries: pipeline.faults, listing: listing(pipeline.faults) },
    variations: { entries: variations, listing: listing(variations) },
  };

  /** Runs the clean handler of an operation: the engine or corpus answer for already-decoded params. */
  function runHandler(route: Route, params: Record<string, string>, pathParams: Record<string, string>): HandlerResult {
    switch (route.operationId) {
      case 'answerSearch':
        return answerSearch(pipeline.web, params);
      case 'urlPreview':
        return urlPreview(pipeline.previews, params);
      case 'hotEvents':
        return pipeline.events.hotEvents(params);
      case 'relatedEvents':
        return pipeline.events.relatedEvents(params);
      case 'eventDocuments':
        return pipeline.events.eventDocuments(params, pathParams.event_id ?? '');
      default:
        return academic(route, params);
    }
  }

  function academic(route: Route, params: Record<string, string>): HandlerResult {
    const op = route.operationId.replace(/(Get|Post)$/, '') as keyof AcademicPort;
    const names = Object.keys(params).sort();
    let cacheKey = op;
    for (const name of names) cacheKey += `\u0000${name}\u0000${params[name]}`;
    const hit = academicCache.get(cacheKey);
    if (hit !== undefined) return { status: 200, rawBody: hit };
    const result = pipeline.engine[op]({ ...params });
    if (result.status !== 200) return { status: result.status, body: result.body };
    const text = JSON.stringify(result.body);
    const aborted =
      typeof result.body === 'object' &&
      result.body !== null &&
      (result.body as { aborted?: unknown }).aborted === true;
    if (aborted || text.length >= 512 * 1024) return { status: 200, body: result.body };
    if (academicCache.size >= CACHEABLE_ACADEMIC) academicCache.delete(academicCache.keys().next().value!);
    academicCache.set(cacheKey, text);
    return { status: 200, rawBody: text };
  }

  async function callClean(
    operationId: string,
    params: Record<string, string>,
    pathParams: Record<string, string> = {},
  ) {
    const route = ROUTE_BY_ID.get(operationId);
    if (!route) throw new Error(`unknown operation ${operationId}`);
    return materialize(runHandler(route, { ...params }, pathParams));
  }

  return (req, res) => {
    handle(req, res).catch((error: unknown) => {
      if (!pipeline.quiet) console.error('reference server:', error);
      if (!res.headersSent) send(res, errorResult('none', 500, 'Internal server error'));
      else res.destroy();
    });
  };

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const rawUrl = req.url ?? '/';
    const q = rawUrl.indexOf('?');
    let path = q < 0 ? rawUrl : rawUrl.slice(0, q);
    let query = q < 0 ? '' : rawUrl.slice(q + 1);
    const hash = query.indexOf('#');
    if (hash >= 0) query = query.slice(0, hash);
    let fault = pipeline.profile;
    let settings = fault ? faultSettings.get(fault.name)! : pipeline.settings;
    const kind = path.startsWith('/faults') ? 'faults' : path.startsWith('/variations') ? 'variations' : undefined;
    const prefix = `/${kind}`;
    if (kind && (path === prefix || path === `${prefix}/` || path.startsWith(`${prefix}/`))) {
      const catalogue = catalogues[kind];
      if (path === prefix || path === `${prefix}/`) {
        if (req.method === 'GET' || req.method === 'HEAD')
          return send(res, { status: 200, rawBody: catalogue.listing });
        return send(res, { ...errorResult('none', 405, 'Method not allowed'), headers: { allow: 'GET' } });
      }
      const slash = path.indexOf('/', prefix.length + 1);
      const name = slash < 0 ? path.slice(prefix.length + 1) : path.slice(prefix.length + 1, slash);
      fault = catalogue.entries.get(name);
      if (!fault)
        return send(
          res,
          errorResult(
            'none',
            404,
            `Unknown ${kind === 'faults' ? 'fault' : 'variation'} '${name.slice(0, 100)}' (GET ${prefix} lists them)`,
          ),
        );
      settings = faultSettings.get(name)!;
      path = slash < 0 ? '/' : path.slice(slash);
    }

    const match = matchPath(path);
    if (!match) return send(res, errorResult(groupOfPath(path), 404, MESSAGES.notFound));
    const method = req.method === 'HEAD' ? 'GET' : req.method;
    const route = match.routes.find((candidate) => candidate.method === method);
    if (!route) {
      const allow = match.routes.map((candidate) => candidate.method).join(', ');
      return await finishEarly(req, res, {
        ...errorResult(match.routes[0]!.group, 405, `Method ${req.method} is not allowed here (allowed: ${allow})`),
        headers: { allow },
      });
    }
    const applies =
      fault !== undefined && (fault.operations.length === 0 || fault.operations.includes(route.operationId));
    if (applies && fault!.raw) return fault!.raw(req, res);
    const header = req.headers[KEY_HEADER];
    const ctx: Ctx = {
      operationId: route.operationId,
      group: route.group,
      method: route.method,
      params: {},
      received: {},
      rawQuery: query,
      rawPath: path,
      rawHeaders: req.rawHeaders,
      pathParams: match.pathParams,
      key: Array.isArray(header) ? header[0] : header,
      headers: req.headers,
      call: callClean,
      route,
    };
    let result = await respond(req, ctx, query, settings, applies ? fault! : undefined, fault?.name ?? '');
    if (applies && fault!.response) result = await fault!.response(ctx, materialize(result));
    if (route.method === 'POST' && !req.readableEnded) await finishEarly(req, res, result);
    else send(res, result);
  }

  /** The 429 for a key whose bucket is empty (answer search and URL preview only), else undefined. */
  function rateLimit(ctx: Ctx, settings: ServerSettings, scope: string): HandlerResult | undefined {
    if (ctx.group !== 'answerSearch' && ctx.group !== 'urlPreview') return undefined;
    const wait = buckets.take(`${scope}|${ctx.group}|${ctx.key ?? ''}`, settings.rateLimit);
    if (wait === 0) return undefined;
    const limited = errorResult(ctx.group, 429, MESSAGES.rateLimited(wait));
    if (settings.retryAfterHeader) limited.headers = { 'retry-after': String(wait) };
    return limited;
  }

  /** Auth, quota, rate limit, body, params, handler: the answer before any response hook. */
  async function respond(
    req: IncomingMessage,
    ctx: Ctx,
    query: string,
    settings: ServerSettings,
    fault: Fault | undefined,
    scope: string,
  ): Promise<HandlerResult> {
    const { route } = ctx;
    const group = route.group;
    const listed = (list: string[] | undefined) =>
      list !== undefined && (list.includes(route.operationId) || list.includes(group));
    if (!listed(settings.authExemptOperations)) {
      if (ctx.key === undefined || ctx.key === '') return errorResult(group, 401, MESSAGES.missingKey);
      const record = pipeline.keys.lookup(ctx.key);
      if (!record) return errorResult(group, 401, MESSAGES.invalidKey);
      if (!record.subscriptions.has(route.subscription) && !listed(settings.subscriptionExemptOperations)) {
        return errorResult(group, 401, MESSAGES.notSubscribed);
      }
      if (settings.quotaEnforced && record.used >= record.quota) return errorResult(group, 403, MESSAGES.quota);
      const limited = rateLimit(ctx, settings, scope);
      if (limited) return limited;
      record.used++;
    } else {
      const limited = rateLimit(ctx, settings, scope);
      if (limited) return limited;
    }

    // Clean GETs whose answer is a pure function of the query string skip decoding on a repeat.
    const rawKey =
      fault === undefined && route.method === 'GET'
        ? `${route.operationId}\u0000${ctx.pathParams.event_id ?? ''}\u0000${query}`
        : undefined;
    const known = rawKey === undefined ? undefined : queryCache.get(rawKey);
    if (known !== undefined) return { status: 200, rawBody: known };
    let params: Record<string, string>;
    try {
      params = parseForm(toUtf8(query));
      if (route.method === 'POST') {
        const isSimilarity = group === 'similarity';
        const limit = isSimilarity
          ? Number.isFinite(settings.bodyLimit)
            ? settings.bodyLimit
            : UNLIMITED_BODY_CAP
          : FORM_BODY_LIMIT;
        const body = await readBody(req, limit);
        if (body === undefined) {
          // The rest of the body is read and dropped before this answer goes out (finishEarly).
          const status = isSimilarity ? (settings.bodyLimitStatus ?? 400) : 400;
          return errorResult(group, status, `Request body exceeds ${limit} bytes`);
        }
        ctx.rawBody = body;
        params = { ...params, ...parseForm(body) };
      }
    } catch (error) {
      if (error instanceof FormDecodeError) {
        return errorResult(
          group,
          400,
          `Missing or invalid parameter: ${error.field.slice(0, 100)} (invalid percent-encoding)`,
          error.field,
        );
      }
      throw error;
    }
    ctx.params = params;
    ctx.received = { ...params };
    fault?.request?.(ctx);
    ctx.params = readIntegers(ctx.params, getOperation(route.operationId)?.requiredInputs ?? []);
    if (!settings.interpretTimeoutHonoured && route.operationId.startsWith('interpret')) delete ctx.params.timeout;
    const refused = checkRequest(route.operationId, group, route.method, ctx.params, ctx.pathParams);
    if (refused) return refused;
    const result = runHandler(route, ctx.params, ctx.pathParams);
    // Handlers answer with a pre-serialized rawBody exactly when the answer is pure and complete.
    if (
      rawKey !== undefined &&
      result.status === 200 &&
      typeof result.rawBody === 'string' &&
      result.rawBody.length < 512 * 1024
    ) {
      if (queryCache.size >= QUERY_CACHE_SIZE) queryCache.delete(queryCache.keys().next().value!);
      queryCache.set(rawKey, result.rawBody);
    }
    return result;
  }
}

/** Turns a pre-serialized JSON answer back into a body a response hook can inspect and change. */
function materialize(result: HandlerResult): HandlerResult {
  if (typeof result.rawBody === 'string' && result.contentType === undefined) {
    const { rawBody, ...rest } = result;
    return { ...rest, body: JSON.parse(rawBody) };
  }
  return result;
}

/** Node decodes the request line as latin1; recover UTF-8 sent unencoded by lenient clients. */
function toUtf8(text: string): string {
  return /[^\x00-\x7f]/.test(text) ? Buffer.from(text, 'latin1').toString('utf8') : text;
}

/**
 * Reads a request body as UTF-8, or undefined as soon as it passes `limit` bytes (nothing beyond
 * is kept; a declared Content-Length above the limit is not read at all). What is left of a refused
 * body is the caller's to drain.
 */
function readBody(req: IncomingMessage, limit: number): Promise<string | undefined> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > limit) return Promise.resolve(undefined);
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const cleanup = () => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
      req.off('aborted', onEnd);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        cleanup();
        req.pause();
        chunks.length = 0;
        resolve(undefined);
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = () => {
      cleanup();
      resolve(Buffer.concat(chunks, size).toString('utf8'));
    };
    const onError = (error: Error) => {
      cleanup();
      reject(error);
    };
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onError);
    req.on('aborted', onEnd);
  });
}

/**
 * Reads and drops what is left of a request body, up to DRAIN_MAX_BYTES and DRAIN_MAX_MS; true
 * when the body ended within both (the connection can then carry the next request).
 */
function drainBody(
  req: IncomingMessage,
  maxBytes: number = DRAIN_MAX_BYTES,
  maxMs: number = DRAIN_MAX_MS,
): Promise<boolean> {
  if (req.readableEnded) return Promise.resolve(true);
  if (req.destroyed) return Promise.resolve(false);
  const declared = Number(req.headers['content-length']);
  // A declared length beyond the bound is not worth waiting for (what was already read is ignored: it is small).
  if (Number.isFinite(declared) && declared > maxBytes) return Promise.resolve(false);
  return new Promise((resolve) => {
    let size = 0;
    const finish = (whole: boolean) => {
      clearTimeout(timer);
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onStop);
      req.off('aborted', onStop);
      req.off('close', onStop);
      if (!whole) req.pause();
      resolve(whole);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxBytes) finish(false);
    };
    const onEnd = () => finish(true);
    const onStop = () => finish(false);
    const timer = setTimeout(onStop, maxMs);
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onStop);
    req.on('aborted', onStop);
    req.on('close', onStop);
    req.resume();
  });
}

/**
 * Answers a request whose body was not read to the end (a refusal): the rest of the body is read
 * and dropped first, within bounds, so a front server that sends the whole body before it reads the
 * answer gets the answer instead of a reset. When the bounds cut the drain short, the answer says
 * `Connection: close`.
 */
async function finishEarly(req: IncomingMessage, res: ServerResponse, result: HandlerResult): Promise<void> {
  // Node closes a connection whose answer says `Connection: close` once the answer is written.
  if (!(await drainBody(req))) result = { ...result, headers: { ...result.headers, connection: 'close' } };
  send(res, result);
}

/** Writes an answer: JSON body serialized once, content type and length (or chunked pieces) set. */
export function send(res: ServerResponse, result: HandlerResult): void {
  if (res.headersSent || res.destroyed) return;
  const payload =
    result.rawBody !== undefined ? result.rawBody : result.body === undefined ? '' : JSON.stringify(result.body);
  const headers: Record<string, string | number> = { 'content-type': result.contentType ?? JSON_TYPE };
  if (!result.chunks)
    headers['content-length'] = typeof payload === 'string' ? Buffer.byteLength(payload) : payload.length;
  if (result.headers) for (const [name, value] of Object.entries(result.headers)) headers[name.toLowerCase()] = value;
  if (!result.headerCase && !result.chunks) {
    res.writeHead(result.status, headers);
    res.end(payload);
    return;
  }
  const named = result.headerCase ?? ((name: string) => name);
  res.writeHead(
    result.status,
    Object.fromEntries(Object.entries(headers).map(([name, value]) => [named(name), value])),
  );
  const bytes = typeof payload === 'string' ? Buffer.from(payload) : payload;
  const pieces = Math.max(1, result.chunks ?? 1);
  const size = Math.max(1, Math.ceil(bytes.length / pieces));
  // Node sends an answer without a Content-Length in chunks, one per write; the last piece ends it.
  let at = 0;
  for (; at + size < bytes.length; at += size) res.write(bytes.subarray(at, at + size));
  res.end(bytes.subarray(at));
}

/** The group of an operation id, for callers outside the pipeline. */
export function groupOf(operationId: string): ApiGroup | undefined {
  return ROUTE_BY_ID.get(operationId)?.group;
}
