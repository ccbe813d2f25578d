import type { OperationInfo } from '../openapi/spec.ts';
import { isObject, sample } from './schema.ts';
import type { WalkIssue } from './walk.ts';

// What a 200 body says about the request and about itself, beyond its schema: the values it
// echoes, and whether its ranking references resolve exactly.

/** Where each operation echoes a request parameter: the parameter and the body property holding it. */
export const ECHOES: Readonly<Record<string, { parameter: string; path: readonly string[] }>> = {
  interpretGet: { parameter: 'query', path: ['query'] },
  interpretPost: { parameter: 'query', path: ['query'] },
  evaluateGet: { parameter: 'expr', path: ['expr'] },
  evaluatePost: { parameter: 'expr', path: ['expr'] },
  calchistogramGet: { parameter: 'expr', path: ['expr'] },
  calchistogramPost: { parameter: 'expr', path: ['expr'] },
  answerSearch: { parameter: 'q', path: ['queryContext', 'originalQuery'] },
};

/** A finding when the body echoes the operation's parameter with another value than the one sent. */
export function echoIssues(op: OperationInfo, sent: Record<string, string>, body: unknown): WalkIssue[] {
  const echo = ECHOES[op.operationId];
  if (!echo || !Object.hasOwn(sent, echo.parameter)) return [];
  let node: unknown = body;
  for (const key of echo.path) node = isObject(node) ? node[key] : undefined;
  const expected = sent[echo.parameter];
  if (typeof node !== 'string' || node === expected) return [];
  const path = `$.${echo.path.join('.')}`;
  return [
    {
      kind: 'echo-differs',
      path,
      normalizedPath: path,
      message: `echo of ${echo.parameter} differs from the value sent: sent ${sample(expected, 60)}, received ${sample(node, 60)}`,
      sample: sample(node),
    },
  ];
}

/** The fragment of an id (`#Facts` of `https://x/api/v7/#Facts`), or undefined without one. */
function fragment(id: string): string | undefined {
  const hash = id.indexOf('#');
  return hash < 0 ? undefined : id.slice(hash);
}

/** Every string `id` of the body outside its rankingResponse: the ids of answers and results. */
function answerIds(body: unknown): Set<string> {
  const ids = new Set<string>();
  const visit = (node: unknown, depth: number) => {
    if (depth > 32) return;
    if (Array.isArray(node)) {
      for (const item of node) visit(item, depth + 1);
      return;
    }
    if (!isObject(node)) return;
    for (const [key, value] of Object.entries(node)) {
      if (key === 'rankingResponse' && depth === 0) continue;
      if (key === 'id' && typeof value === 'string') ids.add(value);
      else visit(value, depth + 1);
    }
  };
  visit(body, 0);
  return ids;
}

/**
 * A finding for each ranking item whose `value.id` matches no answer or result id exactly but
 * matches one by its fragment (`.../knowledge/#Facts` against `.../#Facts`). Items that resolve
 * exactly, or not at all, give none here.
 */
export function rankingIdIssues(body: unknown): WalkIssue[] {
  const ranking = isObject(body) && isObject(body.rankingResponse) ? body.rankingResponse : undefined;
  if (!ranking) return [];
  const ids = answerIds(body);
  const byFragment = new Map<string, string>();
  for (const id of ids) {
    const part = fragment(id);
    if (part !== undefined && !byFragment.has(part)) byFragment.set(part, id);
  }
  const issues: WalkIssue[] = [];
  for (const [group, area] of Object.entries(ranking)) {
    const items = isObject(area) && Array.isArray(area.items) ? area.items : [];
    items.forEach((item, index) => {
      const value = isObject(item) && isObject(item.value) ? item.value : undefined;
      const id = value?.id;
      if (typeof id !== 'string' || ids.has(id)) return;
      const part = fragment(id);
      const match = part === undefined ? undefined : byFragment.get(part);
      if (match === undefined) return;
      const path = `$.rankingResponse.${group}.items[${index}].value.id`;
      issues.push({
        kind: 'ranking-id-by-fragment',
        path,
        normalizedPath: `$.rankingResponse.${group}.items[].value.id`,
        message: `${sample(id, 80)} matches no id exactly, only ${sample(match, 80)} by its fragment ${part}`,
        sample: sample(id),
      });
    });
  }
  return issues;
}
