// The named load scenarios, defined once as plain data. Both runners read this file: `kgate load`
// (Node, autocannon) and the k6 scripts in ./k6 (which import it directly), so it must stay free of
// Node APIs and of imports: only data and small pure helpers.

/** The API groups of the interface, as the spec names them. */
export type LoadGroup = 'academic' | 'similarity' | 'answerSearch' | 'urlPreview' | 'eventKnowledge';

/** One request template of an operation mix; `weight` is its share of the arrivals. */
export interface MixRequest {
  /** Operation id from the spec (e.g. 'evaluateGet'); responses are validated against it. */
  operationId: string;
  group: LoadGroup;
  method: 'GET' | 'POST';
  /** Path below the base URL; `{event_id}` is filled from a discovered hot event before the run. */
  path: string;
  /** Query parameters (GET) sent percent-encoded. */
  query?: Record<string, string>;
  /** Form fields (POST), sent as application/x-www-form-urlencoded. */
  form?: Record<string, string>;
  /** Relative share of the arrivals; the mix is normalised over the sum of weights. */
  weight: number;
}

/** One stage of the arrival-rate profile: the rate moves linearly to `target` over `durationS`. */
export interface RateStage {
  durationS: number;
  /** Arrivals per second at the end of the stage. */
  target: number;
}

/** Service-level objectives a run must meet; every field is one named threshold. */
export interface Thresholds {
  /** 95th percentile latency, measured from the intended send time, in milliseconds. */
  p95Ms: number;
  /** 99th percentile latency, measured from the intended send time, in milliseconds. */
  p99Ms: number;
  /** Largest acceptable share of failed requests (non-2xx, transport errors, timeouts, arrivals never sent). */
  maxErrorRate: number;
  /** Smallest acceptable share of validated responses that match the spec. */
  minValidShare: number;
}

/** A named load scenario: the question it answers, its arrival profile, mix and thresholds. */
export interface Scenario {
  name: string;
  /** The question the scenario answers, printed in reports. */
  question: string;
  /** Arrivals per second at the start of the first stage. */
  startRate: number;
  stages: RateStage[];
  /** Most requests in flight at once (connections for autocannon, VUs for k6). */
  connections: number;
  /** Share of responses validated against the spec, 0..1. */
  validateShare: number;
  thresholds: Thresholds;
  mix: MixRequest[];
}

const ACADEMIC = '/academic/v1.0';

// A browsing session on a scholarly search front end: mostly interpret-then-evaluate, some facets
// (calchistogram), occasional "similar papers", then web answers, link previews and news events.
// Answer search + URL preview stay at 20 % of the arrivals so that the spike peak (300/s) stays
// under the 100/s per-key rate limit of the reference server; a run against a target with a lower
// limit then fails on its error rate, which is the point.
/** The default operation mix shared by every scenario: all four groups, realistic values. */
export const BROWSING_MIX: MixRequest[] = [
  {
    operationId: 'interpretGet',
    group: 'academic',
    method: 'GET',
    path: `${ACADEMIC}/interpret`,
    query: { query: 'papers by jaime teevan after 2012', complete: '1', count: '5', model: 'latest' },
    weight: 16,
  },
  {
    operationId: 'evaluateGet',
    group: 'academic',
    method: 'GET',
    path: `${ACADEMIC}/evaluate`,
    query: {
      expr: "And(Composite(AA.AuN=='jaime teevan'),Y>2012)",
      attributes: 'Id,Ti,Y,D,CC,AA.AuN,AA.AfN,F.FN,J.JN',
      count: '10',
      offset: '0',
      orderby: 'CC:desc',
    },
    weight: 14,
  },
  {
    operationId: 'evaluateGet',
    group: 'academic',
    method: 'GET',
    path: `${ACADEMIC}/evaluate`,
    query: {
      expr: "Or(Ti='indexing by latent seman'...,And(Composite(F.FN=='information retrieval'),Y=[2010,2014)))",
      attributes: 'Id,Ti,Y,CC',
      count: '20',
      offset: '20',
    },
    weight: 8,
  },
  {
    operationId: 'evaluatePost',
    group: 'academic',
    method: 'POST',
    path: `${ACADEMIC}/evaluate`,
    form: {
      expr: "And(Composite(AA.AfN=='harvard university'),D>'2010-02-03')",
      attributes: 'Id,Ti,D,AA.AuN',
      count: '10',
    },
    weight: 4,
  },
  {
    operationId: 'calchistogramGet',
    group: 'academic',
    method: 'GET',
    path: `${ACADEMIC}/calchistogram`,
    query: { expr: "Composite(F.FN=='machine learning')", attributes: 'Y,F.FN,AA.AuN', count: '5' },
    weight: 6,
  },
  {
    operationId: 'calchistogramPost',
    group: 'academic',
    method: 'POST',
    path: `${ACADEMIC}/calchistogram`,
    form: { expr: 'Y=[2010,2012]', attributes: 'Y,J.JN', count: '10' },
    weight: 2,
  },
  {
    operationId: 'similarityGet',
    group: 'similarity',
    method: 'GET',
    path: `${ACADEMIC}/similarity`,
    query: {
      s1: 'Latent semantic analysis improves retrieval by modelling term co-occurrence',
      s2: 'Indexing by latent semantic analysis captures the structure of word usage',
    },
    weight: 6,
  },
  {
    operationId: 'similarityPost',
    group: 'similarity',
    method: 'POST',
    path: `${ACADEMIC}/similarity`,
    form: { s1: 'home', s2: 'house' },
    weight: 2,
  },
  {
    operationId: 'answerSearch',
    group: 'answerSearch',
    method: 'GET',
    path: '/answersearch/v7.0/search',
    query: { q: 'latent semantic analysis', mkt: 'en-US', count: '10', offset: '0', safesearch: 'Moderate' },
    weight: 12,
  },
  {
    operationId: 'urlPreview',
    group: 'urlPreview',
    method: 'GET',
    path: '/urlpreview/v7.0/search',
    query: { q: 'https://en.wikipedia.org/wiki/Latent_semantic_analysis' },
    weight: 8,
  },
  {
    operationId: 'hotEvents',
    group: 'eventKnowledge',
    method: 'GET',
    path: '/eventknowledge/v1.0/hotevents',
    query: { date: '2024-03-08', $top: '10', $skip: '0' },
    weight: 10,
  },
  {
    operationId: 'relatedEvents',
    group: 'eventKnowledge',
    method: 'GET',
    path: '/eventknowledge/v1.0/relatedevents',
    query: { wikipediaid: 'Barack_Obama', $top: '10' },
    weight: 6,
  },
  {
    operationId: 'eventDocuments',
    group: 'eventKnowledge',
    method: 'GET',
    path: '/eventknowledge/v1.0/events/{event_id}/documents',
    query: { $top: '5' },
    weight: 6,
  },
];

/**
 * A request of every operation of the interface, for a mix given as weights per operation (the
 * configuration file's `load.mix`): the browsing mix's requests, and interpret in a POST form,
 * which the browsing mix does not send.
 */
export const OPERATION_TEMPLATES: MixRequest[] = [
  ...BROWSING_MIX,
  {
    operationId: 'interpretPost',
    group: 'academic',
    method: 'POST',
    path: `${ACADEMIC}/interpret`,
    form: { query: 'papers about latent semantic analysis', complete: '0', count: '5' },
    weight: 1,
  },
];

/** The named scenarios. */
export const SCENARIOS: Record<string, Scenario> = {
  // Is the deployment wired at all? Every operation once in a while, every response validated, no
  // tolerance for errors. Cheap enough to run on every deploy before anything heavier.
  smoke: {
    name: 'smoke',
    question: 'Does every operation answer correctly (status and schema) under trivial load?',
    startRate: 5,
    stages: [{ durationS: 10, target: 5 }],
    connections: 5,
    validateShare: 1,
    thresholds: { p95Ms: 500, p99Ms: 1000, maxErrorRate: 0, minValidShare: 1 },
    mix: BROWSING_MIX,
  },
  // Does the target hold its latency and error budget at the planned everyday rate? The p95/p99
  // figures are the budget a search front end can afford per backend call.
  steady: {
    name: 'steady',
    question: 'Does the target hold its latency and error budget at the planned everyday rate?',
    startRate: 50,
    stages: [{ durationS: 30, target: 50 }],
    connections: 50,
    validateShare: 0.01,
    thresholds: { p95Ms: 250, p99Ms: 500, maxErrorRate: 0.01, minValidShare: 0.99 },
    mix: BROWSING_MIX,
  },
  // What happens when traffic jumps sixfold within seconds (a link on a news site) and falls back?
  // Thresholds are looser than steady, but errors must stay rare: queueing is allowed, failing is not.
  spike: {
    name: 'spike',
    question: 'Does the target absorb a sudden sixfold jump in traffic and recover when it falls back?',
    startRate: 50,
    stages: [
      { durationS: 10, target: 50 },
      { durationS: 3, target: 300 },
      { durationS: 10, target: 300 },
      { durationS: 3, target: 50 },
      { durationS: 10, target: 50 },
    ],
    connections: 200,
    validateShare: 0.01,
    thresholds: { p95Ms: 1000, p99Ms: 2000, maxErrorRate: 0.02, minValidShare: 0.99 },
    mix: BROWSING_MIX,
  },
  // Does anything degrade over time at a moderate rate (leaks, growing caches, connection churn)?
  // Same budget as steady, held for ten minutes.
  soak: {
    name: 'soak',
    question: 'Does latency or the error rate drift upwards when a moderate rate is held for a long time?',
    startRate: 30,
    stages: [{ durationS: 600, target: 30 }],
    connections: 50,
    validateShare: 0.01,
    thresholds: { p95Ms: 250, p99Ms: 500, maxErrorRate: 0.01, minValidShare: 0.99 },
    mix: BROWSING_MIX,
  },
};

/** Total duration of a scenario's stages, in seconds. */
export function scenarioDurationS(scenario: Pick<Scenario, 'stages'>): number {
  return scenario.stages.reduce((sum, stage) => sum + stage.durationS, 0);
}

/** The highest arrival rate a scenario reaches. */
export function peakRate(scenario: Pick<Scenario, 'startRate' | 'stages'>): number {
  return scenario.stages.reduce((peak, stage) => Math.max(peak, stage.target), scenario.startRate);
}

/** The number of arrivals a scenario plans: the area under its piecewise-linear rate profile. */
export function plannedArrivals(scenario: Pick<Scenario, 'startRate' | 'stages'>): number {
  let rate = scenario.startRate;
  let total = 0;
  for (const stage of scenario.stages) {
    total += ((rate + stage.target) / 2) * stage.durationS;
    rate = stage.target;
  }
  return Math.floor(total + 1e-9);
}

/** Percent-encodes a set of fields as a query string or form body (no leading '?'). */
export function encodeFields(fields: Record<string, string>): string {
  return Object.keys(fields)
    .map((name) => `${encodeURIComponent(name)}=${encodeURIComponent(fields[name] ?? '')}`)
    .join('&');
}

/** The path with its query string, with `{event_id}`-style placeholders filled from `pathParams`. */
export function requestTarget(request: MixRequest, pathParams: Record<string, string> = {}): string {
  const path = request.path.replace(/\{(\w+)\}/g, (whole, name: string) =>
    pathParams[name] === undefined ? whole : encodeURIComponent(pathParams[name]),
  );
  const query = request.query ? encodeFields(request.query) : '';
  return query ? `${path}?${query}` : path;
}

/** The form body of a POST template, or undefined for GET. */
export function requestBody(request: MixRequest): string | undefined {
  return request.form ? encodeFields(request.form) : undefined;
}

/** Command-line overrides of a scenario. */
export interface ScenarioOverrides {
  /** New peak arrival rate; every stage is scaled by the same factor. */
  rate?: number;
  /** New total duration in seconds; every stage is stretched by the same factor. */
  durationS?: number;
  connections?: number;
  validateShare?: number;
}

/** A copy of the scenario with the overrides applied (rate and duration scale the whole profile). */
export function applyOverrides(scenario: Scenario, overrides: ScenarioOverrides): Scenario {
  const rateFactor = overrides.rate === undefined ? 1 : overrides.rate / Math.max(peakRate(scenario), 1e-9);
  const timeFactor =
    overrides.durationS === undefined ? 1 : overrides.durationS / Math.max(scenarioDurationS(scenario), 1e-9);
  return {
    ...scenario,
    startRate: scenario.startRate * rateFactor,
    stages: scenario.stages.map((stage) => ({
      durationS: stage.durationS * timeFactor,
      target: stage.target * rateFactor,
    })),
    connections: overrides.connections ?? scenario.connections,
    validateShare: overrides.validateShare ?? scenario.validateShare,
  };
}
