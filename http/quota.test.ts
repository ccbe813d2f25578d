// The quota and rate-limit answers kgate recognises are the ones facts.md's gateway section gives,
// and the interface's own: every message of the section that names a quota or a rate limit is read
// from the file itself and recognised, with the time it states. Beside them, what is no quota answer.
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { quotaSignal, replenishedWords } from './quota.ts';
import { statedWaitMs, throttleSignal } from './throttle.ts';

const FACTS = fileURLToPath(new URL('../../shared/facts.md', import.meta.url));
const JSON_TYPE = { 'content-type': 'application/json; charset=utf-8' };

/** The section of facts.md on the gateway's rate limits and quotas, and the messages it quotes. */
function gatewayMessages(): { quota: string[]; rate: string[] } | undefined {
  if (!existsSync(FACTS)) return undefined;
  const text = readFileSync(FACTS, 'utf8');
  const start = text.indexOf('## Rate limits and quotas at the gateway');
  assert.ok(start >= 0, 'facts.md has its gateway section');
  const end = text.indexOf('\n## ', start + 1);
  const section = text.slice(start, end < 0 ? undefined : end).replace(/\s*\n\s*/g, ' ');
  const quoted = [...section.matchAll(/"([^"]+)"/g)].map((match) => match[1]!);
  return {
    quota: quoted.filter((message) => /quota/i.test(message)),
    rate: quoted.filter((message) => /rate limit/i.test(message)),
  };
}

test("every quota answer facts.md's gateway section quotes is recognised, with when it is replenished", (t) => {
  const messages = gatewayMessages();
  if (!messages) return t.skip(`no ${FACTS}: the gateway's forms are read from it`);
  assert.ok(messages.quota.length >= 1, `facts.md quotes a quota message: ${messages.quota.join(' | ')}`);
  for (const message of messages.quota) {
    // As the gateway sends it: JSON with the status and the message, and Retry-After in seconds.
    const signal = quotaSignal({
      status: 403,
      headers: { ...JSON_TYPE, 'retry-after': '3600' },
      body: JSON.stringify({ statusCode: 403, message }),
    });
    assert.ok(signal, message);
    const stated = /replenished in\s+([0-9.:]+?)\.?$/i.exec(message)?.[1];
    if (stated) assert.equal(signal.replenishedIn, stated, message);
    // The same words as plain text: a gateway configured to answer so.
    assert.ok(quotaSignal({ status: 403, headers: { 'content-type': 'text/plain' }, body: message }), message);
  }
});

test("every rate-limit answer facts.md's gateway section quotes is throttling, with the seconds it states", (t) => {
  const messages = gatewayMessages();
  if (!messages) return t.skip(`no ${FACTS}: the gateway's forms are read from it`);
  assert.ok(messages.rate.length >= 1, `facts.md quotes a rate-limit message: ${messages.rate.join(' | ')}`);
  for (const template of messages.rate) {
    const message = template.replace(/\bN\b/, '7');
    const signal = throttleSignal({
      status: 429,
      headers: JSON_TYPE,
      body: JSON.stringify({ error: { statusCode: 429, message } }),
    });
    assert.ok(signal, message);
    assert.equal(statedWaitMs(signal), 7_000, message);
  }
});

test("the interface's own quota answers, and a gateway's day count, are recognised; the key's 403s and other answers are not", () => {
  const cases: { given: { status: number; body: string; headers?: Record<string, string> }; want?: string }[] = [
    {
      given: { status: 403, body: '{"error":{"code":"QuotaExceeded","message":"Call volume quota is used up."}}' },
      want: 'replenished later',
    },
    {
      given: {
        status: 403,
        body: '{"error":{"statusCode":403,"message":"Out of call volume quota. Quota will be replenished in 5.03:23:11."}}',
      },
      want: 'replenished in 5.03:23:11',
    },
    {
      given: { status: 403, body: '{"statusCode":403,"message":"Quota exceeded"}', headers: { 'retry-after': '120' } },
      want: 'replenished in 120 s',
    },
    // Not a quota: a key refused, a subscription missing, a front's 403 page, a 429.
    { given: { status: 403, body: '{"statusCode":403,"message":"Access denied: the key is not subscribed."}' } },
    {
      given: {
        status: 403,
        body: '<html><title>403 Forbidden</title></html>',
        headers: { 'content-type': 'text/html' },
      },
    },
    { given: { status: 401, body: '{"error":{"statusCode":401,"message":"Quota key invalid"}}' } },
    {
      given: {
        status: 429,
        body: '{"error":{"statusCode":429,"message":"Rate limit is exceeded. Try again in 1 seconds."}}',
      },
    },
  ];
  for (const { given, want } of cases) {
    const signal = quotaSignal({ status: given.status, headers: { ...JSON_TYPE, ...given.headers }, body: given.body });
    assert.equal(signal && replenishedWords(signal), want, given.body);
  }
});
