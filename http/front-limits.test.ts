import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  characterClassesOf,
  frontLimitNotes,
  frontRefusal,
  LONG_BODY_BYTES,
  LONG_HEAD_BYTES,
  mergeFrontLimits,
  noFrontLimits,
  recordPassed,
  recordRefusal,
} from './front-limits.ts';

const html = { 'content-type': 'text/html' };
const json = { 'content-type': 'application/json; charset=utf-8' };
const answer = (status: number, headers: Record<string, string> = {}, body = '') => ({
  status,
  headers,
  body: Buffer.from(body),
});
const get = (headBytes: number) => ({ headBytes, bodyBytes: 0 });
const post = (bodyBytes: number) => ({ headBytes: 200, bodyBytes });

test("a front server's refusal of a request beyond what the interface promises is its own; anything else is judged", () => {
  const long = LONG_HEAD_BYTES + 1;
  const cases: {
    name: string;
    given: { method: string; sent: { headBytes: number; bodyBytes: number }; answer: ReturnType<typeof answer> };
    want?: { part: 'head' | 'body'; status: number; contentType: string };
  }[] = [
    {
      name: "nginx's 414 page to a long GET",
      given: { method: 'GET', sent: get(10_000), answer: answer(414, html, '<html>414</html>') },
      want: { part: 'head', status: 414, contentType: 'text/html' },
    },
    {
      name: "Node's 431 with no body and no content type",
      given: { method: 'GET', sent: get(17_000), answer: answer(431) },
      want: { part: 'head', status: 431, contentType: 'no content type' },
    },
    {
      name: "nginx's 400 'Request Header Or Cookie Too Large' page",
      given: { method: 'GET', sent: get(long), answer: answer(400, html, '<html>400</html>') },
      want: { part: 'head', status: 400, contentType: 'text/html' },
    },
    {
      name: "a gateway's JSON 414 (a status the interface never sends)",
      given: { method: 'GET', sent: get(long), answer: answer(414, json, '{"message":"URI too long"}') },
      want: { part: 'head', status: 414, contentType: 'application/json' },
    },
    {
      name: "nginx's 413 to a body over 1 MB",
      given: { method: 'POST', sent: post(1_049_600), answer: answer(413, html, '<html>413</html>') },
      want: { part: 'body', status: 413, contentType: 'text/html' },
    },
    {
      name: "the interface's own 400 (JSON) to a long GET is its answer, judged",
      given: { method: 'GET', sent: get(10_000), answer: answer(400, json, '{"error":{"code":"BadArgument"}}') },
    },
    {
      name: "a deployment's own 413 in JSON to a body over 1 MB is its answer, judged (the interface documents 400)",
      given: { method: 'POST', sent: post(1_049_600), answer: answer(413, json, '{"error":{"code":"BadArgument"}}') },
    },
    {
      name: "the interface's own 400 to a body over 1 MB is its answer (body-limit-enforced judges it)",
      given: { method: 'POST', sent: post(1_049_600), answer: answer(400, json, '{"error":"too large"}') },
    },
    {
      name: 'a short GET refused is a failure to judge, not a front limit',
      given: { method: 'GET', sent: get(LONG_HEAD_BYTES), answer: answer(414, html, '<html>414</html>') },
    },
    {
      name: 'a body under 1 MB refused is a failure to judge',
      given: { method: 'POST', sent: post(LONG_BODY_BYTES), answer: answer(413, html) },
    },
    {
      name: 'a 5xx to a long request stays a failure',
      given: { method: 'GET', sent: get(10_000), answer: answer(502, html, '<html>502</html>') },
    },
    {
      name: 'a 2xx to a long request is judged',
      given: { method: 'GET', sent: get(10_000), answer: answer(200, html, '<html>hello</html>') },
    },
    {
      name: 'a 404 to a long request is judged',
      given: { method: 'GET', sent: get(10_000), answer: answer(404, html) },
    },
  ];
  for (const { name, given, want } of cases) {
    const refusal = frontRefusal(given.method, given.sent, given.answer);
    if (!want) assert.equal(refusal, undefined, name);
    else {
      assert.ok(refusal, name);
      assert.deepEqual({ part: refusal.part, status: refusal.status, contentType: refusal.contentType }, want, name);
    }
  }
});

test('the note names the limit once per kind of refusal, with the shortest refused and the longest that got through', () => {
  const a = noFrontLimits();
  recordPassed(a, get(7_146));
  recordPassed(a, get(900));
  recordRefusal(a, { part: 'head', method: 'GET', bytes: 9_000, status: 414, contentType: 'text/html' });
  const b = noFrontLimits();
  recordRefusal(b, { part: 'head', method: 'GET', bytes: 8_508, status: 414, contentType: 'text/html' });
  recordRefusal(b, { part: 'body', method: 'POST', bytes: 1_049_600, status: 413, contentType: 'text/html' });
  b.resent = 2;
  const all = mergeFrontLimits(mergeFrontLimits(noFrontLimits(), a), b);
  assert.deepEqual(frontLimitNotes(all), [
    'GET requests over about 8 KB (request line and headers) got 414 text/html from a server in front of the interface, not from the interface: 2 request(s), the shortest 8,508 bytes, the longest that got through 7,146 bytes. Long inputs belong in the POST variants, so these GET requests were not judged; 2 generated input(s) went through the POST variant instead.',
    'POST requests over about 1.0 MB (body) got 413 text/html from a server in front of the interface, not from the interface: 1 request(s), the shortest 1,049,600 bytes. A body over the documented 1 MB is beyond what the interface takes, so these were not judged.',
  ]);
  assert.deepEqual(frontLimitNotes(noFrontLimits()), []);
});

test('the limit named is the round one between the longest request through and the shortest refused', () => {
  const cases: { given: { passed: number; refused: number }; want: string }[] = [
    // nginx's 8 KB, whatever lengths the run happened to send around it.
    { given: { passed: 6_649, refused: 9_824 }, want: 'about 8 KB' },
    { given: { passed: 7_146, refused: 8_508 }, want: 'about 8 KB' },
    // Node's 16 KB on the whole head; a 2 KB gateway.
    { given: { passed: 15_000, refused: 17_100 }, want: 'about 16 KB' },
    { given: { passed: 1_200, refused: 2_300 }, want: 'about 2 KB' },
    // Two round limits fit what was seen: the larger is named.
    { given: { passed: 3_000, refused: 9_000 }, want: 'about 8 KB' },
    // No round limit fits: the shortest refused, rounded down.
    { given: { passed: 9_000, refused: 12_500 }, want: 'about 12 KB' },
    // Nothing got through: the largest round limit the refused request passed.
    { given: { passed: 0, refused: 9_824 }, want: 'about 8 KB' },
  ];
  for (const { given, want } of cases) {
    const limits = noFrontLimits();
    if (given.passed > 0) recordPassed(limits, get(given.passed));
    recordRefusal(limits, { part: 'head', method: 'GET', bytes: given.refused, status: 414, contentType: 'text/html' });
    const [note] = frontLimitNotes(limits);
    assert.ok(note?.startsWith(`GET requests over ${want} `), `${JSON.stringify(given)}: ${note}`);
  }
});

test("a front server's refusal of characters in a URL is its own, named with it; the interface's answers to them are judged", () => {
  const lighttpd = { 'content-type': 'text/html', server: 'lighttpd/1.4.69' };
  const cases: { name: string; target: string; answer: ReturnType<typeof answer>; want?: string[] }[] = [
    {
      name: "lighttpd's stock 400 page to a percent-encoded control character",
      target: 'http://127.0.0.1:1/api/answersearch/v7.0/search?q=a%01b&mkt=en-US',
      answer: { status: 400, headers: lighttpd, body: Buffer.from('<html>400 Bad Request</html>') },
      want: ['control characters'],
    },
    {
      name: 'a plain-text 400 without a Server header, to a malformed escape',
      target: '/academic/v1.0/evaluate?expr=Ti%3D%27100%%27',
      answer: { status: 400, headers: { 'content-type': 'text/plain' }, body: Buffer.from('Bad Request') },
      want: ['a malformed percent-encoding'],
    },
    {
      name: "the interface's own JSON 400 to a control character is its answer, judged",
      target: '/answersearch/v7.0/search?q=a%01b&mkt=en-US',
      answer: {
        status: 400,
        headers: { ...lighttpd, 'content-type': 'application/json' },
        body: Buffer.from('{"_type":"ErrorResponse","errors":[]}'),
      },
    },
    {
      name: 'an HTML 400 to a URL of plain text is judged (no class a front refuses)',
      target: '/answersearch/v7.0/search?q=plain&mkt=en-US',
      answer: { status: 400, headers: lighttpd, body: Buffer.from('<html>400</html>') },
    },
    {
      name: 'a 500 to a control character is judged',
      target: '/answersearch/v7.0/search?q=a%01b&mkt=en-US',
      answer: { status: 500, headers: lighttpd, body: Buffer.from('<html>500</html>') },
    },
    {
      name: 'an unmarked answer (JSON content type, no Server, no Via) is judged even if it is not JSON',
      target: '/answersearch/v7.0/search?q=a%01b&mkt=en-US',
      answer: { status: 400, headers: { 'content-type': 'application/json' }, body: Buffer.from('oops') },
    },
  ];
  for (const { name, target, answer: given, want } of cases) {
    const refusal = frontRefusal('GET', get(200), given, target);
    assert.deepEqual(refusal?.characters, want, name);
    if (want) assert.equal(refusal!.part, 'characters', name);
  }
  const limits = noFrontLimits();
  recordRefusal(limits, frontRefusal('GET', get(200), cases[0]!.answer, cases[0]!.target)!);
  assert.deepEqual(frontLimitNotes(limits), [
    "GET requests whose URL held control characters were refused by the front server (lighttpd/1.4.69): 400 text/html, not the interface's answer (1 request(s)). Not judged, and not sent there again; the POST variants carry such inputs where the operation has one.",
  ]);
  assert.deepEqual(characterClassesOf('/p?q=%7Fx'), ['control characters']);
  assert.deepEqual(characterClassesOf('/p?q=caf%C3%A9'), [], 'UTF-8, percent-encoded, is text like any other');
});
