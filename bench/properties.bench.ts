// What judging an answer by the properties costs, against validating the same answer with the
// spec's schema (what the request fixture does to every response), measured in the same run.
// The properties' cost is all a run does with the answer for them: judge it by every invariant
// that applies, and note which of them it carried data for (what a skip reports).
// Target: the invariants of an answer cost less than its schema validation.
import { mkdirSync, writeFileSync } from 'node:fs';
import { exchangeOf, judgeResponse, propertiesReading } from '../contracts/properties/index.ts';
import { type JsonObject, loadSpec } from '../openapi/spec.ts';
import { validateResponse } from '../openapi/validator.ts';

const examples = (loadSpec().components as JsonObject).examples as Record<string, { value: any }>;

/** A 20-entity evaluate answer sorted by CC, as `orderby=CC:desc&attributes=Id,Ti,Y,CC,AA&count=20` asks. */
function evaluateBody(): unknown {
  const base = examples.EvaluateResponse!.value.entities[0];
  const entities = Array.from({ length: 20 }, (_, i) => ({
    ...base,
    prob: 0.00002 / (i + 1),
    Id: 2157025439 + i,
    Ti: `${base.Ti} part ${i}`,
    Y: 2000 + i,
    CC: 1000 - i * 37,
    AA: Array.from({ length: 4 }, (_, a) => ({ AuN: `author ${i} ${a}`, AuId: 1982462162 + a })),
  }));
  return { expr: "Composite(AA.AuN=='jaime teevan')", entities };
}

const cases = [
  {
    name: 'evaluate (20 entities)',
    operationId: 'evaluateGet',
    params: { expr: "Composite(AA.AuN=='jaime teevan')", attributes: 'Id,Ti,Y,CC,AA', orderby: 'CC:desc', count: '20' },
    body: evaluateBody(),
  },
  {
    name: 'interpret',
    operationId: 'interpretGet',
    params: { query: examples.InterpretResponse!.value.query, complete: '1', count: '2' },
    body: examples.InterpretResponse!.value,
  },
  {
    name: 'calchistogram',
    operationId: 'calchistogramGet',
    params: { expr: examples.HistogramResponse!.value.expr, attributes: 'Y,F.FN', count: '4' },
    body: examples.HistogramResponse!.value,
  },
  {
    name: 'answer search',
    operationId: 'answerSearch',
    params: { q: examples.AnswerSearchResponse!.value.queryContext.originalQuery, mkt: 'en-US', count: '10' },
    body: examples.AnswerSearchResponse!.value,
  },
  {
    name: 'hotevents',
    operationId: 'hotEvents',
    params: { date: '2026-11-01', $top: '10' },
    body: examples.EventList!.value,
  },
];

/** Nanoseconds per call of fn, over at least minMs of wall time. */
function timePerCall(fn: () => void, minMs = 1000): number {
  for (let i = 0; i < 2000; i++) fn();
  let calls = 0;
  const start = process.hrtime.bigint();
  const deadline = start + BigInt(minMs) * 1_000_000n;
  let now = start;
  while (now < deadline) {
    for (let i = 0; i < 500; i++) fn();
    calls += 500;
    now = process.hrtime.bigint();
  }
  return Number(now - start) / calls;
}

const results = [];
for (const { name, operationId, params, body } of cases) {
  const exchange = exchangeOf(operationId, Object.entries(params), {}, 200, body);
  const found = judgeResponse(exchange).map(({ check, violation }) => `${check}: ${violation.title}`);
  const propertiesNs = timePerCall(() => {
    judgeResponse(exchange);
    propertiesReading(exchange);
  });
  const validateNs = timePerCall(() => validateResponse(operationId, 200, 'application/json; charset=utf-8', body));
  const ratio = propertiesNs / validateNs;
  results.push({ name, propertiesNs, validateNs, ratio, target: '< 1', met: ratio < 1, found });
  console.log(
    `${name.padEnd(24)} properties ${(propertiesNs / 1000).toFixed(2)} us  schema validation ${(validateNs / 1000).toFixed(2)} us  properties/validation ${ratio.toFixed(2)} (target < 1) ${ratio < 1 ? 'met' : 'NOT met'}${found.length ? `  (found: ${found.join('; ')})` : ''}`,
  );
}
// A run judges answers of many operations in turn: the same answers, one of each operation after the
// other, so that nothing looked up for the last operation is of use to the next.
{
  const exchanges = cases.map(({ operationId, params, body }) => ({
    operationId,
    body,
    exchange: exchangeOf(operationId, Object.entries(params), {}, 200, body),
  }));
  const propertiesNs = timePerCall(() => {
    for (const { exchange } of exchanges) {
      judgeResponse(exchange);
      propertiesReading(exchange);
    }
  });
  const validateNs = timePerCall(() => {
    for (const { operationId, body } of exchanges)
      validateResponse(operationId, 200, 'application/json; charset=utf-8', body);
  });
  const ratio = propertiesNs / validateNs;
  const name = 'all five in turn';
  results.push({ name, propertiesNs, validateNs, ratio, target: '< 1', met: ratio < 1, found: [] });
  console.log(
    `${name.padEnd(24)} properties ${(propertiesNs / 1000).toFixed(2)} us  schema validation ${(validateNs / 1000).toFixed(2)} us  properties/validation ${ratio.toFixed(2)} (target < 1) ${ratio < 1 ? 'met' : 'NOT met'}`,
  );
}
mkdirSync('reports/bench', { recursive: true });
writeFileSync('reports/bench/properties.json', `${JSON.stringify({ node: process.version, results }, null, 2)}\n`);
