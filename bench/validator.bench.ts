// Validation cost against JSON.parse of the same bytes, measured in the same run.
// Target (issue 2): validating costs less than parsing.
import { mkdirSync, writeFileSync } from 'node:fs';
import { type JsonObject, loadSpec } from '../openapi/spec.ts';
import { validateResponse } from '../openapi/validator.ts';

const examples = (loadSpec().components as JsonObject).examples as Record<string, { value: any }>;

/** A 10-entity evaluate response with the attributes real clients ask for. */
function evaluateBody(): unknown {
  const base = examples.EvaluateResponse?.value.entities[0];
  const entities = Array.from({ length: 10 }, (_, i) => ({
    ...base,
    prob: 0.00002 / (i + 1),
    Id: 2157025439 + i,
    Ti: `${base.Ti} part ${i}`,
    Y: 2000 + i,
    D: `${2000 + i}-03-1${i % 10}`,
    CC: 1000 - i * 37,
    ECC: 1100 - i * 37,
    W: String(base.Ti).split(' '),
    AA: Array.from({ length: 4 }, (_, a) => ({
      AuN: `author ${i} ${a}`,
      AuId: 1982462162 + a,
      AfN: 'example university',
      AfId: 1290206253,
      S: a + 1,
    })),
    F: [
      { FN: 'information retrieval', FId: 23123220 },
      { FN: 'world wide web', FId: 136764020 },
    ],
    J: { JN: 'journal of examples', JId: 118988714 },
    RId: Array.from({ length: 20 }, (_, r) => 2000000000 + r),
  }));
  return { expr: "Composite(AA.AuN=='jaime teevan')", entities, aborted: false };
}

/** A full answer-search response: 10 web pages, 3 entities, facts and a ranking over all of them. */
function answerSearchBody(): unknown {
  const base = structuredClone(examples.AnswerSearchResponse?.value);
  const page = base.webPages.value[0];
  base.webPages.value = Array.from({ length: 10 }, (_, i) => ({
    ...page,
    id: `https://api.example.org/api/v7/#WebPages.${i}`,
    name: `${page.name} ${i}`,
  }));
  const entity = base.entities.value[0];
  base.entities.value = Array.from({ length: 3 }, (_, i) => ({
    ...entity,
    id: `https://api.example.org/api/v7/#Entities.${i}`,
  }));
  base.rankingResponse.mainline.items = [
    { answerType: 'Facts', value: { id: base.facts.id } },
    ...base.webPages.value.map((p: { id: string }, i: number) => ({
      answerType: 'WebPages',
      resultIndex: i,
      value: { id: p.id },
    })),
  ];
  base.rankingResponse.sidebar.items = base.entities.value.map((e: { id: string }, i: number) => ({
    answerType: 'Entities',
    resultIndex: i,
    value: { id: e.id },
  }));
  return base;
}

/** The same evaluate response as the real service sent it when nothing timed out: no aborted, one warning. */
function evaluateWithoutAbortedBody(): unknown {
  const { aborted: _aborted, ...rest } = evaluateBody() as { aborted: boolean };
  return rest;
}

/** Nanoseconds per call of fn, over at least minMs of wall time. */
function timePerCall(fn: () => void, minMs = 1500): number {
  for (let i = 0; i < 2000; i++) fn(); // warm up the JIT
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

const cases = [
  { name: 'evaluate (10 entities)', operationId: 'evaluateGet', body: evaluateBody() },
  { name: 'evaluate, no aborted', operationId: 'evaluateGet', body: evaluateWithoutAbortedBody() },
  { name: 'answer search (full)', operationId: 'answerSearch', body: answerSearchBody() },
];
const results = [];
for (const { name, operationId, body } of cases) {
  const bytes = JSON.stringify(body);
  const parsed = JSON.parse(bytes);
  const check = validateResponse(operationId, 200, 'application/json', parsed);
  if (!check.valid)
    throw new Error(`bench body for ${name} is invalid: ${check.errors.map((e) => e.message).join('; ')}`);
  const parseNs = timePerCall(() => JSON.parse(bytes));
  const validateNs = timePerCall(() => validateResponse(operationId, 200, 'application/json; charset=utf-8', parsed));
  const ratio = validateNs / parseNs;
  results.push({ name, bytes: bytes.length, parseNs, validateNs, ratio, target: '< 1', met: ratio < 1 });
  console.log(
    `${name.padEnd(24)} ${String(bytes.length).padStart(6)} B  parse ${(parseNs / 1000).toFixed(2)} us  validate ${(validateNs / 1000).toFixed(2)} us  validate/parse ${ratio.toFixed(2)} (target < 1) ${ratio < 1 ? 'met' : 'NOT met'}`,
  );
}
mkdirSync('reports/bench', { recursive: true });
writeFileSync('reports/bench/validator.json', `${JSON.stringify({ node: process.version, results }, null, 2)}\n`);
