import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createAcademicEngine } from './academic/engine.ts';
import { WebCorpus } from './answer-search.ts';
import { defaultKey, KeyConfigError, KeyTable } from './auth.ts';
import { EventCorpus } from './events.ts';
import { createFaults, FAULTS } from './faults/index.ts';
import type { Fault, ServerSettings } from './faults/types.ts';
import { namedEntities } from './names.ts';
import { createListener } from './server.ts';
import { PreviewCorpus } from './url-preview.ts';
import { createVariations, VARIATIONS, type Variation } from './variations/index.ts';

/** Options of the reference server; every one has a default. */
export interface ReferenceServerOptions {
  /** TCP port; 0 (default) picks a free one. */
  port?: number;
  /** Interface to listen on; default 127.0.0.1. */
  host?: string;
  /** Seed of every generated corpus and of the built-in keys; default 1. */
  seed?: number;
  /** Number of academic papers; default 10,000. */
  papers?: number;
  /** Requests per second per key on answer search and URL preview (bucket capacity = rate); default 100. */
  rateLimit?: number;
  /** Similarity POST body limit in bytes; default 1,048,576. */
  bodyLimit?: number;
  /** No error logging to stderr. */
  quiet?: boolean;
  /** JSON file with extra keys, subscriptions and quotas (format in reference/README.md). */
  configFile?: string;
  /** Server-side time budget of evaluate, calchistogram (answers carry aborted: true) in ms; default 1000. */
  timeBudgetMs?: number;
  /** Similarity compute deadline in ms, answered with 408 when passed; default 5000. */
  similarityDeadlineMs?: number;
  /** How the root URL answers: 'clean' (default, the interface read strictly) or 'real' (as the real service did). */
  profile?: Profile;
  /**
   * Resolve as soon as the server listens and build the corpora later: when the caller first reads
   * `ready`, or when the first request arrives (requests wait for them). A caller can start its
   * clients first, as `kgate conform` starts Playwright's runner (which takes longer to send a
   * first request than the corpora take to build) and only then asks for them.
   */
  buildAfterListening?: boolean;
}

/** The profiles the root URL can serve. */
export const PROFILES = ['clean', 'real'] as const;

/** One of PROFILES. */
export type Profile = (typeof PROFILES)[number];

/** The fault each non-clean profile applies at the root URL. */
const PROFILE_FAULT: Record<Exclude<Profile, 'clean'>, string> = { real: 'real-profile' };

/** Limit on the request line and headers of the clean profile (the real profile keeps Node's default). */
export const LONG_HEADER_BYTES = 256 * 1024;

/** The three built-in subscription keys. */
export interface ReferenceKeys {
  full: string;
  academicOnly: string;
  exhausted: string;
}

/** A running reference server. */
export interface ReferenceServer {
  /** `http://127.0.0.1:<port>`, no trailing slash. */
  url: string;
  keys: ReferenceKeys;
  /** Paths (with query) of a few requests that answer 200 with non-empty results on this corpus (once `ready`). */
  readonly examples: string[];
  /** Resolves once the corpora are built and requests are answered (at once, unless buildAfterListening: reading it starts the build). */
  readonly ready: Promise<void>;
  close(): Promise<void>;
}

/** Defaults of ReferenceServerOptions. */
export const DEFAULTS = {
  host: '127.0.0.1',
  port: 0,
  seed: 1,
  papers: 10_000,
  rateLimit: 100,
  bodyLimit: 1_048_576,
} as const;

export { KeyConfigError };

/** The built-in keys of a seed, before any config file replaces them (documented in reference/README.md). */
export function defaultKeys(seed: number = DEFAULTS.seed): ReferenceKeys {
  return {
    full: defaultKey(seed, 'full'),
    academicOnly: defaultKey(seed, 'academicOnly'),
    exhausted: defaultKey(seed, 'exhausted'),
  };
}

/** The fault catalogue as served by `GET {url}/faults`. */
export function listFaults(): Pick<Fault, 'name' | 'group' | 'operations' | 'deviation' | 'description'>[] {
  return FAULTS.map(({ name, group, operations, deviation, description }) => ({
    name,
    group,
    operations,
    deviation,
    description,
  }));
}

/** The catalogue of legitimate variations as served by `GET {url}/variations`. */
export function listVariations(): Pick<
  Variation,
  'name' | 'group' | 'operations' | 'deviation' | 'description' | 'allowedBy'
>[] {
  return VARIATIONS.map(({ name, group, operations, deviation, description, allowedBy }) => ({
    name,
    group,
    operations,
    deviation,
    description,
    allowedBy,
  }));
}

/** Settings of the clean server (faults override some of them). */
export function cleanSettings(rateLimit: number, bodyLimit: number): ServerSettings {
  return {
    rateLimit,
    bodyLimit,
    authExemptOperations: [],
    interpretTimeoutHonoured: true,
    quotaEnforced: true,
    retryAfterHeader: true,
    subscriptionExemptOperations: [],
    bodyLimitStatus: 400,
  };
}

/** Starts the reference server (all 13 operations plus the fault catalogue under /faults). */
export async function startReferenceServer(options: ReferenceServerOptions = {}): Promise<ReferenceServer> {
  const seed = options.seed ?? DEFAULTS.seed;
  const papers = options.papers ?? DEFAULTS.papers;
  const rateLimit = options.rateLimit ?? DEFAULTS.rateLimit;
  const bodyLimit = options.bodyLimit ?? DEFAULTS.bodyLimit;
  if (!(rateLimit > 0))
    throw new RangeError(`rateLimit must be a positive number of requests per second, got ${rateLimit}`);
  if (!(Number.isSafeInteger(bodyLimit) && bodyLimit > 0)) {
    throw new RangeError(`bodyLimit must be a positive whole number of bytes, got ${bodyLimit}`);
  }
  const profile = options.profile ?? 'clean';
  if (!PROFILES.includes(profile))
    throw new RangeError(`profile must be one of ${PROFILES.join(', ')}, got ${profile}`);
  const keys = new KeyTable(seed, options.configFile);
  // Each server gets its own catalogue: some faults keep state (lockouts, held connections).
  const faults = new Map<string, Fault>(createFaults().map((fault) => [fault.name, fault]));
  const variations = new Map<string, Fault>(createVariations().map((variation) => [variation.name, variation]));
  let engine: ReturnType<typeof createAcademicEngine> | undefined;
  let events: EventCorpus | undefined;
  let listener: ReturnType<typeof createListener> | undefined;
  const build = () => {
    const entities = namedEntities(seed);
    engine = createAcademicEngine({
      seed,
      papers,
      timeBudgetMs: options.timeBudgetMs,
      similarityDeadlineMs: options.similarityDeadlineMs,
    });
    events = new EventCorpus(seed, entities);
    listener = createListener({
      engine,
      web: new WebCorpus(seed, entities),
      previews: new PreviewCorpus(seed),
      events,
      keys,
      settings: cleanSettings(rateLimit, bodyLimit),
      faults,
      variations,
      profile: profile === 'clean' ? undefined : faults.get(PROFILE_FAULT[profile]),
      quiet: options.quiet ?? false,
    });
  };
  let building: Promise<void> | undefined;
  /** Builds the corpora once, in a later turn of the loop, however often it is asked. */
  const buildSoon = (): Promise<void> =>
    (building ??= new Promise<void>((resolve, reject) =>
      setImmediate(() => {
        try {
          build();
          resolve();
        } catch (error) {
          reject(error);
        }
      }),
    ));
  if (!options.buildAfterListening) build();
  const server = createServer(
    {
      keepAlive: true,
      requestTimeout: 30_000,
      headersTimeout: 20_000,
      // The realistic profile keeps Node's default limit on the request line and headers (16 KB),
      // as Express, Fastify and most Node deployments do: a longer GET gets Node's 431 with an
      // empty body. The clean profile, and every fault under /faults, raise it: kgate's own tests
      // judge the checks of long GETs against them (kgate fuzz's long URL preview `q`, up to about
      // 24 KB encoded; expressions near the ~16,000 characters real clients sent, facts.md), and
      // Node's 431 would stop those requests before any check could see an answer.
      ...(profile === 'real' ? {} : { maxHeaderSize: LONG_HEADER_BYTES }),
    },
    (request, response) => {
      if (listener) listener(request, response);
      else
        buildSoon().then(
          () => listener!(request, response),
          (error: Error) => {
            // A defect of the reference server itself: said, not left hanging.
            response.writeHead(500, { 'content-type': 'text/plain' });
            response.end(`the reference server could not build its corpora: ${error.message}`);
          },
        );
    },
  );
  server.keepAliveTimeout = 10_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? DEFAULTS.port, options.host ?? DEFAULTS.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  let closing: Promise<void> | undefined;
  return {
    url: `http://${host}:${address.port}`,
    keys: {
      full: keys.named('full')!.key,
      academicOnly: keys.named('academicOnly')!.key,
      exhausted: keys.named('exhausted')!.key,
    },
    get examples() {
      if (!engine || !events) throw new Error('the reference server is not ready: await its ready first');
      return examplePaths(engine.samples(), events.samples());
    },
    get ready() {
      return listener ? Promise.resolve() : buildSoon();
    },
    close() {
      // A build under way ends first; one never asked for is not started.
      closing ??= (building ?? Promise.resolve()).then(
        () =>
          new Promise<void>((resolve) => {
            for (const fault of faults.values()) fault.dispose?.();
            server.close(() => resolve());
            server.closeAllConnections();
          }),
      );
      return closing;
    },
  };
}

function examplePaths(
  academic: ReturnType<ReturnType<typeof createAcademicEngine>['samples']>,
  events: ReturnType<EventCorpus['samples']>,
): string[] {
  const q = (params: Record<string, string>) => new URLSearchParams(params).toString().replaceAll('+', '%20');
  return [
    `/academic/v1.0/interpret?${q({ query: academic.queries[0]!, complete: '1', count: '3' })}`,
    `/academic/v1.0/evaluate?${q({ expr: academic.expressions[0]!, count: '3', attributes: 'Ti,Y,AA.AuN' })}`,
    `/academic/v1.0/calchistogram?${q({ expr: `Y>${academic.years[1]}`, attributes: 'Y,F.FN', count: '3' })}`,
    `/academic/v1.0/similarity?${q({ s1: academic.titles[0]!, s2: academic.titleWords.slice(0, 3).join(' ') })}`,
    `/answersearch/v7.0/search?${q({ q: 'barack obama', mkt: 'en-US', count: '3' })}`,
    `/urlpreview/v7.0/search?${q({ q: 'https://example.com/' })}`,
    `/eventknowledge/v1.0/hotevents?date=${events.date}&$top=3`,
    `/eventknowledge/v1.0/relatedevents?wikipediaid=${events.wikipediaId}&$top=3`,
    `/eventknowledge/v1.0/events/${events.eventId}/documents?$top=3`,
  ];
}
