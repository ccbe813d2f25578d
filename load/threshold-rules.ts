// Service-level thresholds as a team states them, in k6's threshold syntax, per operation or for
// every operation together: `evaluateGet: p(95)<300ms`, `*: p(99)<1s`, `*: error_rate<1%`,
// `*: valid_share>99%`. One source for both runners: `kgate load` judges these rules, and the k6
// scripts turn the same rules into k6's `thresholds`. Pure and free of imports, so that the k6
// scripts (which run inside k6, not Node) read it as they read ../scenarios.ts.

/** How a measured value is compared with its limit. */
export type Comparator = '<' | '<=' | '>' | '>=';

/** What a rule measures: latency (milliseconds), or a share of requests (0..1). */
export type Measure = 'latency' | 'error_rate' | 'valid_share';

/** One threshold, read from its text. */
export interface ThresholdRule {
  /** The operation id it judges, or `*` for every operation together. */
  scope: string;
  measure: Measure;
  /** The aggregation as written in k6's syntax: `p(95)`, `avg`, `min`, `max`, `med`, `error_rate`, `valid_share`. */
  aggregation: string;
  /** The percentile of a latency rule (`med` is 50, `min` 0, `max` 100); absent for `avg` and the shares. */
  percentile?: number;
  comparator: Comparator;
  /** The limit: milliseconds for latency, a share from 0 to 1 for error_rate and valid_share. */
  limit: number;
  /** The expression as kgate writes it back: `p(95)<300ms`. */
  expression: string;
  /** The whole rule: `evaluateGet: p(95)<300ms`. */
  text: string;
}

/** The rule of a threshold in words, as a usage error says it after "takes". */
export const THRESHOLD_RULE =
  "a threshold in k6's syntax, [OPERATION: ]MEASURE COMPARISON VALUE: OPERATION an operation id or * (every operation, the default), MEASURE one of p(N), avg, min, max, med (latency, VALUE in ms or s), error_rate or valid_share (VALUE in %), COMPARISON one of <, <=, >, >= (such as 'evaluateGet: p(95)<300ms' or '*: error_rate<1%')";

/** The longest latency limit, in milliseconds (one hour, the longest latency kgate records). */
export const MAX_LATENCY_LIMIT_MS = 3_600_000;

/** A threshold that breaks the syntax; the message is the reason, as a usage error says it in brackets. */
export class ThresholdSyntaxError extends Error {
  override name = 'ThresholdSyntaxError';
}

const LATENCY_WORDS: Record<string, number | undefined> = { avg: undefined, min: 0, max: 100, med: 50 };

/**
 * Reads one expression (`p(95)<300ms`) of the operation `scope`; throws ThresholdSyntaxError with
 * the reason when it breaks the syntax.
 */
export function parseExpression(raw: string, scope = '*'): ThresholdRule {
  const text = raw.trim();
  if (text === '') throw new ThresholdSyntaxError('an empty threshold');
  const head = /^(p\s*\(\s*([^)]*)\)|[A-Za-z_][A-Za-z0-9_.]*)\s*/.exec(text);
  if (!head)
    throw new ThresholdSyntaxError(
      `'${text}' does not start with a measure: p(N), avg, min, max, med, error_rate or valid_share`,
    );
  let measure: Measure;
  let aggregation: string;
  let percentile: number | undefined;
  if (head[2] !== undefined) {
    const n = head[2].trim();
    const value = Number(n);
    if (n === '' || !/^\d+(\.\d+)?$/.test(n) || !(value > 0 && value <= 100))
      throw new ThresholdSyntaxError(
        `p(${n}): the percentile must be a number above 0 and at most 100, such as p(95) or p(99.9)`,
      );
    measure = 'latency';
    aggregation = `p(${value})`;
    percentile = value;
  } else {
    const word = head[1]!;
    if (word in LATENCY_WORDS) {
      measure = 'latency';
      aggregation = word;
      percentile = LATENCY_WORDS[word];
    } else if (word === 'error_rate' || word === 'valid_share') {
      measure = word;
      aggregation = word;
    } else if (word === 'rate' || word === 'count' || word === 'value') {
      throw new ThresholdSyntaxError(
        `'${word}' is k6's measure of a metric; here write error_rate (failed requests) or valid_share (validated answers that match the spec)`,
      );
    } else {
      throw new ThresholdSyntaxError(
        `unknown measure '${word}' (one of p(N), avg, min, max, med, error_rate, valid_share)`,
      );
    }
  }
  const rest = text.slice(head[0].length);
  const compared = /^(===|==|!=|<=|>=|<|>)\s*/.exec(rest);
  if (!compared)
    throw new ThresholdSyntaxError(
      `no comparison after ${aggregation}: one of <, <=, >, >= (such as ${aggregation}<${measure === 'latency' ? '300ms' : '1%'})`,
    );
  const comparator = compared[1]!;
  if (comparator !== '<' && comparator !== '<=' && comparator !== '>' && comparator !== '>=')
    throw new ThresholdSyntaxError(`the comparison '${comparator}' is not one of <, <=, >, >=`);
  const valueText = rest.slice(compared[0].length).trim();
  const value = /^(\d+(?:\.\d+)?|\.\d+)\s*(ms|s|%)?$/.exec(valueText);
  if (!value) {
    throw new ThresholdSyntaxError(
      valueText === ''
        ? `no value after ${aggregation}${comparator}`
        : `'${valueText}' is not a number with its unit (${measure === 'latency' ? 'ms or s, such as 300ms or 1.5s' : '%, such as 1% or 99.5%'})`,
    );
  }
  const number = Number(value[1]);
  const unit = value[2];
  let limit: number;
  if (measure === 'latency') {
    if (unit === undefined)
      throw new ThresholdSyntaxError(`a bare number has no unit: write ${value[1]}ms or ${value[1]}s`);
    if (unit === '%') throw new ThresholdSyntaxError(`${aggregation} is a latency: its value is in ms or s, not %`);
    limit = unit === 's' ? number * 1000 : number;
    if (limit > MAX_LATENCY_LIMIT_MS)
      throw new ThresholdSyntaxError(`${valueText}: above 1h, the longest latency kgate records`);
  } else {
    if (unit === undefined)
      throw new ThresholdSyntaxError(
        `a share takes %: write ${value[1]}% (a bare number could be read as a fraction or a percentage)`,
      );
    if (unit !== '%')
      throw new ThresholdSyntaxError(`${aggregation} is a share of requests: its value is in %, not ${unit}`);
    if (number > 100) throw new ThresholdSyntaxError(`${valueText}: a share is at most 100%`);
    limit = Number((number / 100).toPrecision(12));
  }
  const expression = `${aggregation}${comparator}${value[1]}${unit}`;
  return {
    scope,
    measure,
    aggregation,
    ...(percentile !== undefined ? { percentile } : {}),
    comparator,
    limit,
    expression,
    text: `${scope}: ${expression}`,
  };
}

/** An operation id as the spec writes one (letters and digits, starting with a lower-case letter). */
const OPERATION_ID = /^[a-z][A-Za-z0-9]*$/;

/**
 * Reads one threshold (`evaluateGet: p(95)<300ms`, `*: p(99)<1s`, or an expression alone for every
 * operation); `operations` are the operation ids a scope may name. Throws ThresholdSyntaxError.
 */
export function parseThreshold(raw: string, operations?: readonly string[]): ThresholdRule {
  // [\s\S], not the `s` flag: k6's older runtimes parse ES2015 regular expressions only.
  const scoped = /^\s*(\*|[A-Za-z_][A-Za-z0-9_]*)\s*:([\s\S]*)$/.exec(raw);
  if (!scoped) return parseExpression(raw, '*');
  return parseExpression(scoped[2]!, checkScope(scoped[1]!, operations));
}

/** Checks the operation a threshold names; throws ThresholdSyntaxError naming the known ones. */
export function checkScope(scope: string, operations?: readonly string[]): string {
  if (scope === '*') return scope;
  if (scope.startsWith('http_') || scope === 'checks' || scope === 'dropped_iterations')
    throw new ThresholdSyntaxError(
      `'${scope}' is a k6 metric: name an operation id (such as evaluateGet) or * for every operation`,
    );
  if (!OPERATION_ID.test(scope) || (operations !== undefined && !operations.includes(scope)))
    throw new ThresholdSyntaxError(
      `unknown operation '${scope}' (an operation id${operations ? `: ${operations.join(', ')}` : ''}; or * for every operation)`,
    );
  return scope;
}

/** The key two rules share when one replaces the other: the same operation and the same measure. */
export function ruleKey(rule: Pick<ThresholdRule, 'scope' | 'measure' | 'aggregation' | 'percentile'>): string {
  const what =
    rule.measure === 'latency' ? (rule.percentile === undefined ? 'avg' : `p${rule.percentile}`) : rule.measure;
  return `${rule.scope} ${what}`;
}

/**
 * The rules in force: each layer (a scenario's own, then the configuration file's, then the command
 * line's) replaces the rules of the layers before it that judge the same operation and measure,
 * and adds the others. Rules of one layer all stay.
 */
export function mergeRules(...layers: ThresholdRule[][]): ThresholdRule[] {
  let rules: ThresholdRule[] = [];
  for (const layer of layers) {
    const replaced = new Set(layer.map(ruleKey));
    rules = [...rules.filter((rule) => !replaced.has(ruleKey(rule))), ...layer];
  }
  return rules;
}

/** A share as a percentage for a rule's text: 0.01 -> '1', 0.995 -> '99.5'. */
function percentText(share: number): string {
  return String(Number((share * 100).toPrecision(12)));
}

/** The four rules of a scenario's own budget (p95, p99, error rate, valid share), for every operation. */
export function budgetRules(budget: {
  p95Ms: number;
  p99Ms: number;
  maxErrorRate: number;
  minValidShare: number;
}): ThresholdRule[] {
  return [
    `p(95)<=${budget.p95Ms}ms`,
    `p(99)<=${budget.p99Ms}ms`,
    `error_rate<=${percentText(budget.maxErrorRate)}%`,
    `valid_share>=${percentText(budget.minValidShare)}%`,
  ].map((expression) => parseExpression(expression, '*'));
}

/** The stable id of a rule's verdict: `p95-latency`, `error-rate`, `evaluateGet:p95-latency`. */
export function ruleId(rule: Pick<ThresholdRule, 'scope' | 'measure' | 'aggregation' | 'percentile'>): string {
  const what =
    rule.measure === 'latency'
      ? `${rule.aggregation === 'avg' || rule.aggregation === 'min' || rule.aggregation === 'max' || rule.aggregation === 'med' ? rule.aggregation : `p${rule.percentile}`}-latency`
      : rule.measure.replace('_', '-');
  return rule.scope === '*' ? what : `${rule.scope}:${what}`;
}

/**
 * k6's `thresholds` for the rules: latency on `http_req_duration`, the error rate on
 * `http_req_failed` and, for every operation together, on `dropped_iterations` (arrivals never sent
 * for want of a free VU, out of `planned`, as kgate counts them), the valid share on `checks`; a
 * rule of one operation on the metric's sub-metric of the requests tagged with it.
 */
export function k6Thresholds(rules: readonly ThresholdRule[], planned: number): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  const add = (metric: string, expression: string) => {
    const list = out[metric] ?? [];
    if (!list.includes(expression)) list.push(expression);
    out[metric] = list;
  };
  for (const rule of rules) {
    if (rule.measure === 'latency') {
      add(
        rule.scope === '*' ? 'http_req_duration' : `http_req_duration{name:${rule.scope}}`,
        `${rule.aggregation}${rule.comparator}${rule.limit}`,
      );
    } else if (rule.measure === 'error_rate') {
      add(
        rule.scope === '*' ? 'http_req_failed' : `http_req_failed{name:${rule.scope}}`,
        `rate${rule.comparator}${rule.limit}`,
      );
      // Arrivals never sent count as failed: k6 reports them apart, as a count over the planned arrivals.
      if (rule.scope === '*' && (rule.comparator === '<=' || rule.comparator === '<')) {
        const allowed = rule.limit * planned;
        add(
          'dropped_iterations',
          rule.comparator === '<=' ? `count<=${Math.floor(allowed + 1e-9)}` : `count<${Math.ceil(allowed - 1e-9)}`,
        );
      }
    } else {
      add(rule.scope === '*' ? 'checks' : `checks{operation:${rule.scope}}`, `rate${rule.comparator}${rule.limit}`);
    }
  }
  return out;
}
