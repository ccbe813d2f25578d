// A team's traffic as the mix of a load run: weights per operation (the configuration file's
// `load.mix`) applied to the scenario's requests, or the shares and inputs of recorded traffic
// (`kgate load --mix-from FILE.har`), and how the mix a run sent compares with the mix it asked for.
// A recorded request's headers are never read: the subscription key (a header, or a key query
// parameter, which is dropped) comes from the run's own key, as for every request of kgate.
import { registerSecret } from '../config/redact.ts';
import { Random, seedOf } from '../contracts/generative/random.ts';
import { harEntries, harForm, harKeys, KEY_QUERY_PARAMETERS } from '../http/har.ts';
import { matchOperation } from '../openapi/spec.ts';
import { validateRequest } from '../openapi/validator.ts';
import { type MixRequest, OPERATION_TEMPLATES } from './scenarios.ts';

/** Where a run's mix came from, as summary.json says it. */
export interface MixOrigin {
  kind: 'scenario' | 'configuration file' | 'har';
  /** The HAR file (kind `har`). */
  file?: string;
  /** HAR: entries in the log, those whose request matched an operation of the spec and was sent as recorded. */
  entries?: number;
  used?: number;
  /** HAR: entries matching no operation, and requests the spec refuses (any conforming target answers those 400). */
  unmatched?: number;
  refused?: number;
  /** HAR: distinct requests (operation and inputs) among those used. */
  distinct?: number;
}

/** A mix and where it came from. */
export interface TrafficMix {
  mix: MixRequest[];
  origin: MixOrigin;
}

/** A recorded request's inputs cannot be used as a load run's mix: the message says why. */
export class TrafficError extends Error {
  override name = 'TrafficError';
}

/**
 * The scenario's requests weighted per operation: each operation named gets its weight, shared
 * among its requests in the scenario's own proportions (an operation the scenario does not send
 * takes kgate's request for it); an operation not named is not sent.
 */
export function weightedMix(template: readonly MixRequest[], weights: Record<string, number>): MixRequest[] {
  const mix: MixRequest[] = [];
  for (const [operationId, weight] of Object.entries(weights)) {
    if (!(weight > 0)) continue;
    let requests = template.filter((entry) => entry.operationId === operationId);
    if (requests.length === 0) requests = OPERATION_TEMPLATES.filter((entry) => entry.operationId === operationId);
    if (requests.length === 0) throw new TrafficError(`no request of kgate's for the operation '${operationId}'`);
    const total = requests.reduce((sum, entry) => sum + entry.weight, 0);
    for (const entry of requests) mix.push({ ...entry, weight: (weight * entry.weight) / total });
  }
  if (mix.length === 0) throw new TrafficError('every weight is 0: the mix sends nothing');
  return mix;
}

/**
 * The mix of recorded traffic: each operation's share is its share of the recorded requests the
 * spec accepts, and its inputs (query parameters and form fields) are drawn from those requests,
 * each distinct one weighted by how often it was recorded, in an order drawn from `seed` (so that
 * when a run's request list cannot hold every one, those it holds are a fair draw). Path
 * parameters (an event's id) are discovered on the target, as for every scenario: an id recorded
 * on another deployment names nothing on this one. Throws TrafficError when nothing can be used.
 */
export function harMix(har: unknown, file: string, seed = 1): TrafficMix {
  const entries = harEntries(har, file);
  const byRequest = new Map<string, MixRequest>();
  let unmatched = 0;
  let refused = 0;
  let used = 0;
  for (const entry of entries) {
    const match = entry.url ? matchOperation(entry.method, entry.url.pathname) : undefined;
    if (!match) {
      unmatched++;
      continue;
    }
    const op = match.operation;
    // The key a recording carries is never sent nor kept: the run sends its own.
    const keys = new Set(harKeys(entry));
    for (const key of keys) registerSecret(key);
    const drop = (name: string, value: string) =>
      (KEY_QUERY_PARAMETERS as readonly string[]).includes(name) || keys.has(value);
    const query = Object.fromEntries([...entry.url!.searchParams].filter(([name, value]) => !drop(name, value)));
    const recordedForm = op.method === 'post' ? harForm(entry.request) : undefined;
    const form = recordedForm
      ? Object.fromEntries(Object.entries(recordedForm).filter(([name, value]) => !drop(name, value)))
      : undefined;
    if (!validateRequest(op.operationId, { query, ...(form ? { form } : {}), pathParams: match.pathParams }).valid) {
      refused++;
      continue;
    }
    used++;
    const request: MixRequest = {
      operationId: op.operationId,
      group: op.group,
      method: op.method === 'post' ? 'POST' : 'GET',
      path: op.path,
      ...(Object.keys(query).length > 0 ? { query } : {}),
      ...(form ? { form } : {}),
      weight: 1,
    };
    const id = JSON.stringify([request.operationId, request.query ?? {}, request.form ?? {}]);
    const known = byRequest.get(id);
    if (known) known.weight++;
    else byRequest.set(id, request);
  }
  if (used === 0)
    throw new TrafficError(
      `${file}: none of its ${entries.length} recorded requests can be sent (${unmatched} match no operation of the interface, ${refused} are refused by the spec)`,
    );
  const random = new Random(seedOf(seed, 'har-mix'));
  const mix = [...byRequest.values()];
  for (let i = mix.length - 1; i > 0; i--) {
    const j = Math.floor(random.next() * (i + 1));
    [mix[i], mix[j]] = [mix[j]!, mix[i]!];
  }
  return {
    mix,
    origin: { kind: 'har', file, entries: entries.length, used, unmatched, refused, distinct: mix.length },
  };
}

/** Each operation's share of a mix's weights (0..1), by operation id. */
export function mixShares(mix: readonly MixRequest[]): Record<string, number> {
  const total = mix.reduce((sum, entry) => sum + entry.weight, 0);
  const shares: Record<string, number> = {};
  for (const entry of mix) shares[entry.operationId] = (shares[entry.operationId] ?? 0) + entry.weight / total;
  return shares;
}

/** How the mix a run sent compares with the mix it asked for, by operation. */
export interface MixComparison {
  /** Each operation's share asked and sent (0..1). */
  operations: { operationId: string; asked: number; sent: number }[];
  /** The largest difference between a share sent and asked, in percentage points. */
  largestGapPoints: number;
}

/** Compares the shares asked with the requests sent per operation (`sentCounts`). */
export function compareMix(asked: Record<string, number>, sentCounts: Record<string, number>): MixComparison {
  const total = Object.values(sentCounts).reduce((sum, n) => sum + n, 0);
  const ids = [...new Set([...Object.keys(asked), ...Object.keys(sentCounts)])];
  const operations = ids
    .map((operationId) => ({
      operationId,
      asked: asked[operationId] ?? 0,
      sent: total === 0 ? 0 : (sentCounts[operationId] ?? 0) / total,
    }))
    .sort((a, b) => b.asked - a.asked || a.operationId.localeCompare(b.operationId));
  const largestGapPoints = Math.max(0, ...operations.map((op) => Math.abs(op.sent - op.asked) * 100));
  return { operations, largestGapPoints: Math.round(largestGapPoints * 100) / 100 };
}

/** The summary line of a mix: `mix (recorded traffic, x.har): interpretGet 60.2 % (asked 60 %), ...; largest gap 0.4 points`. */
export function describeMix(comparison: MixComparison, origin: MixOrigin): string {
  const percent = (share: number) => `${Number((share * 100).toFixed(1))} %`;
  const where =
    origin.kind === 'har'
      ? `recorded traffic, ${origin.file}: ${origin.used} of ${origin.entries} requests used, ${origin.distinct} distinct${origin.unmatched ? `, ${origin.unmatched} matching no operation` : ''}${origin.refused ? `, ${origin.refused} refused by the spec` : ''}`
      : origin.kind === 'configuration file'
        ? 'load.mix of the configuration file'
        : "the scenario's";
  const parts = comparison.operations.map((op) => `${op.operationId} ${percent(op.sent)} (asked ${percent(op.asked)})`);
  return `mix sent (${where}): ${parts.join(', ')}; largest gap ${comparison.largestGapPoints} points`;
}
