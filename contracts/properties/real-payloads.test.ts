// The real service is conforming by definition (facts.md): every invariant that judges an answer
// passes its documented answers (openapi/real-payloads/), read with the request each answered, at
// most with a warning. The body verdicts.json rejects is rejected by the schema, not by a property.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { judgeResponse, propertiesReading, WARN_PROPERTIES } from './index.ts';

const DIR = fileURLToPath(new URL('../../openapi/real-payloads/', import.meta.url));
const { payloads } = JSON.parse(readFileSync(`${DIR}verdicts.json`, 'utf8')) as {
  payloads: { file: string; operationId: string; status: number; request: string }[];
};

/** The parameters of a documented request line (`GET /path?a=b c&d=e`, written unencoded as the documentation writes it). */
function paramsOf(request: string): Record<string, string> | undefined {
  const query = /^[A-Z]+ \S+?\?(.+)$/.exec(request)?.[1];
  if (query === undefined) return undefined;
  return Object.fromEntries(
    query.split('&').map((pair) => {
      const at = pair.indexOf('=');
      return [pair.slice(0, at), pair.slice(at + 1)];
    }),
  );
}

test('every invariant passes the real service documented answers, with their requests (warnings at most)', () => {
  const judged: string[] = [];
  const failed: string[] = [];
  for (const payload of payloads) {
    const params = paramsOf(payload.request);
    if (!params) continue;
    const exchange = {
      operationId: payload.operationId,
      params,
      pathParams: {},
      status: payload.status,
      json: JSON.parse(readFileSync(`${DIR}${payload.file}`, 'utf8')),
    };
    for (const check of propertiesReading(exchange)) judged.push(`${check} ${payload.file}`);
    for (const { check, violation } of judgeResponse(exchange))
      if (!violation.warn && !WARN_PROPERTIES.has(check)) failed.push(`${payload.file}: ${check}: ${violation.title}`);
  }
  assert.deepEqual(failed, [], 'a property failing what the real service answered is a false failure');
  for (const want of [
    'interpretation-output-matches-parse interpret-200-docs-2016.json',
    'attributes-are-honoured calchistogram-200-docs-2016.json',
    'paging-respects-size calchistogram-200-docs-2016.json',
    'attributes-are-honoured evaluate-200-docs-2016.json',
  ])
    assert.ok(judged.includes(want), `judged: ${want} (${judged.join(', ')})`);
});
