// The team's traffic as a run's mix: weights per operation (load.mix), recorded traffic (a HAR),
// the request list that carries the shares, and the refusals of input that cannot be used.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { parseLoadArgs } from '../cli/commands/load.ts';
import { withTeamMix } from '../cli/commands/load-settings.ts';
import { UsageError } from '../cli/door/args.ts';
import { expandMix } from './runner.ts';
import { BROWSING_MIX, SCENARIOS } from './scenarios.ts';
import { compareMix, describeMix, harMix, mixShares, TrafficError, weightedMix } from './traffic.ts';

const dir = mkdtempSync(join(tmpdir(), 'kgate-traffic-'));
after(() => rmSync(dir, { recursive: true, force: true }));

/** A HAR log of the given requests (method, URL, optional form body). */
function har(requests: { method?: string; url: string; form?: string; headers?: Record<string, string> }[]) {
  return {
    log: {
      version: '1.2',
      entries: requests.map((r) => ({
        request: {
          method: r.method ?? 'GET',
          url: r.url,
          headers: Object.entries(r.headers ?? {}).map(([name, value]) => ({ name, value })),
          ...(r.form ? { postData: { mimeType: 'application/x-www-form-urlencoded', text: r.form } } : {}),
        },
        response: { status: 200, headers: [], content: { mimeType: 'application/json', text: '{}' } },
      })),
    },
  };
}

/** Each operation's count in the request list a mix expands to. */
function listCounts(list: { operationId: string }[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const request of list) counts[request.operationId] = (counts[request.operationId] ?? 0) + 1;
  return counts;
}

describe('load.mix: weights per operation', () => {
  test("each operation named gets its weight's share, spread over the scenario's requests for it", () => {
    const mix = weightedMix(BROWSING_MIX, { interpretGet: 70, evaluateGet: 25, calchistogramGet: 5 });
    const shares = mixShares(mix);
    assert.deepEqual(Object.keys(shares).sort(), ['calchistogramGet', 'evaluateGet', 'interpretGet']);
    assert.ok(Math.abs(shares.interpretGet! - 0.7) < 1e-9, String(shares.interpretGet));
    assert.ok(Math.abs(shares.evaluateGet! - 0.25) < 1e-9, String(shares.evaluateGet));
    assert.ok(Math.abs(shares.calchistogramGet! - 0.05) < 1e-9, String(shares.calchistogramGet));
    // GET evaluate has several requests in the browsing mix: all of them keep their place.
    const evaluates = BROWSING_MIX.filter((entry) => entry.operationId === 'evaluateGet').length;
    assert.equal(mix.filter((entry) => entry.operationId === 'evaluateGet').length, evaluates);
    const counts = listCounts(expandMix(mix, undefined, {}));
    const total = Object.values(counts).reduce((a, b) => a + b, 0);
    assert.ok(Math.abs(counts.interpretGet! / total - 0.7) <= 0.01, JSON.stringify(counts));
  });

  test("an operation the scenario does not send takes kgate's request for it; a weight of 0 is not sent", () => {
    const mix = weightedMix(SCENARIOS.steady!.mix, { interpretPost: 1, evaluateGet: 1, hotEvents: 0 });
    assert.deepEqual(Object.keys(mixShares(mix)).sort(), ['evaluateGet', 'interpretPost']);
    const post = mix.find((entry) => entry.operationId === 'interpretPost')!;
    assert.equal(post.method, 'POST');
    assert.ok(post.form?.query, 'the form of interpret');
  });

  test('every weight 0: refused, and the CLI names the key', () => {
    assert.throws(() => weightedMix(BROWSING_MIX, { interpretGet: 0 }), TrafficError);
    assert.throws(
      () => withTeamMix(SCENARIOS.steady!, { load: { mix: { interpretGet: 0 } } }, undefined, 1),
      (error: unknown) =>
        error instanceof UsageError &&
        error.details.key === 'load.mix' &&
        /key 'load\.mix': every weight is 0/.test(error.message),
    );
  });
});

describe('recorded traffic (a HAR)', () => {
  const KEY = 'recorded0key0000000000000000000000';
  const log = har([
    ...Array.from({ length: 6 }, (_, i) => ({
      url: `https://api.example.org/academic/v1.0/interpret?query=${['web mining', 'latent semantic'][i % 2]}&count=5&subscription-key=${KEY}`,
      headers: { 'Ocp-Apim-Subscription-Key': KEY },
    })),
    ...Array.from({ length: 3 }, () => ({
      url: '/academic/v1.0/evaluate?expr=Y%3D2012&count=3',
    })),
    { method: 'POST', url: '/academic/v1.0/evaluate', form: `expr=Y%3D2013&count=2&subscription-key=${KEY}` },
    // Refused by the spec (evaluate without its expression), and a path of no operation.
    { url: '/academic/v1.0/evaluate?count=3' },
    { url: '/favicon.ico' },
  ]);

  test("each operation's share is its share of the usable requests; inputs as recorded, the key dropped", () => {
    const traffic = harMix(log, 'x.har', 7);
    assert.deepEqual(traffic.origin, {
      kind: 'har',
      file: 'x.har',
      entries: 12,
      used: 10,
      unmatched: 1,
      refused: 1,
      distinct: 4,
    });
    const shares = mixShares(traffic.mix);
    assert.ok(Math.abs(shares.interpretGet! - 0.6) < 1e-9);
    assert.ok(Math.abs(shares.evaluateGet! - 0.3) < 1e-9);
    assert.ok(Math.abs(shares.evaluatePost! - 0.1) < 1e-9);
    const interprets = traffic.mix.filter((entry) => entry.operationId === 'interpretGet');
    assert.deepEqual(interprets.map((entry) => [entry.query?.query, entry.weight]).sort(), [
      ['latent semantic', 3],
      ['web mining', 3],
    ]);
    assert.ok(!JSON.stringify(traffic.mix).includes(KEY), 'no recorded key in the mix');
    assert.deepEqual(traffic.mix.find((entry) => entry.operationId === 'evaluatePost')!.form, {
      expr: 'Y=2013',
      count: '2',
    });
  });

  test('the draw depends on the seed only: the same seed gives the same order', () => {
    assert.deepEqual(harMix(log, 'x.har', 3).mix, harMix(log, 'x.har', 3).mix);
  });

  test('nothing usable: refused, saying how many matched no operation and how many the spec refused', () => {
    assert.throws(
      () => harMix(har([{ url: '/favicon.ico' }, { url: '/academic/v1.0/evaluate' }]), 'y.har'),
      (error: unknown) =>
        error instanceof TrafficError &&
        /y\.har: none of its 2 recorded requests can be sent \(1 match no operation of the interface, 1 are refused by the spec\)/.test(
          error.message,
        ),
    );
  });

  test("more distinct requests than the request list's places: the operations' shares still hold", () => {
    const many = har([
      ...Array.from({ length: 1800 }, (_, i) => ({ url: `/academic/v1.0/interpret?query=q${i}&count=5` })),
      ...Array.from({ length: 200 }, (_, i) => ({ url: `/academic/v1.0/evaluate?expr=Y%3D${1900 + i}` })),
    ]);
    const traffic = harMix(many, 'many.har');
    assert.equal(traffic.origin.distinct, 2000);
    const list = expandMix(traffic.mix, undefined, {});
    assert.equal(list.length, 1000);
    assert.deepEqual(listCounts(list), { interpretGet: 900, evaluateGet: 100 });
  });
});

describe('the mix sent against the mix asked', () => {
  test('shares per operation and the largest gap in points', () => {
    const comparison = compareMix({ interpretGet: 0.6, evaluateGet: 0.4 }, { interpretGet: 57, evaluateGet: 43 });
    assert.deepEqual(comparison, {
      operations: [
        { operationId: 'interpretGet', asked: 0.6, sent: 0.57 },
        { operationId: 'evaluateGet', asked: 0.4, sent: 0.43 },
      ],
      largestGapPoints: 3,
    });
    assert.equal(
      describeMix(comparison, { kind: 'configuration file' }),
      'mix sent (load.mix of the configuration file): interpretGet 57 % (asked 60 %), evaluateGet 43 % (asked 40 %); largest gap 3 points',
    );
  });

  test('an operation sent but never asked for counts as a gap', () => {
    const comparison = compareMix({ interpretGet: 1 }, { interpretGet: 90, hotEvents: 10 });
    assert.equal(comparison.largestGapPoints, 10);
  });
});

describe('--mix-from refuses what it cannot read, naming the option and the rule', () => {
  const cases: { name: string; file: () => string; want: RegExp }[] = [
    { name: 'a missing file', file: () => join(dir, 'none.har'), want: /cannot read it: ENOENT/ },
    {
      name: 'a file that is not JSON',
      file: () => {
        writeFileSync(join(dir, 'text.har'), 'GET /academic/v1.0/interpret\n');
        return join(dir, 'text.har');
      },
      want: /not JSON/,
    },
    {
      name: 'JSON that is not a HAR log',
      file: () => {
        writeFileSync(join(dir, 'other.json'), '{"entries": []}');
        return join(dir, 'other.json');
      },
      want: /no log\.entries array: not a HAR file/,
    },
  ];
  for (const { name, file, want } of cases)
    test(name, () => {
      assert.throws(
        () => parseLoadArgs(['steady', '--mix-from', file()]),
        (error: unknown) =>
          error instanceof UsageError &&
          /--mix-from/.test(error.message) &&
          /HAR file/.test(error.message) &&
          want.test(error.message),
      );
    });

  test('a HAR with nothing of the interface: a usage error naming --mix-from', () => {
    const path = join(dir, 'foreign.har');
    writeFileSync(path, JSON.stringify(har([{ url: 'https://example.org/index.html' }])));
    const { parsed, scenario } = parseLoadArgs(['steady', '--mix-from', path]);
    assert.throws(
      () => withTeamMix(scenario, {}, parsed.options['mix-from'], 1),
      (error: unknown) =>
        error instanceof UsageError &&
        error.details.option === '--mix-from' &&
        /option --mix-from: .*foreign\.har: none of its 1 recorded requests can be sent/.test(error.message),
    );
  });
});
