import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { SPEC_PATH } from '../../openapi/spec.ts';
import { startReferenceServer } from '../../reference/index.ts';
import { kgateInProcess as kgate } from '../../scripts/kgate-in-process.ts';

let dir: string;

const spec = (countSchema: unknown) =>
  JSON.stringify({
    openapi: '3.1.0',
    info: { title: 't', version: '1' },
    paths: {
      '/x': {
        get: {
          parameters: [{ name: 'count', in: 'query', schema: countSchema }],
          responses: { '200': { description: 'ok' } },
        },
      },
    },
  });

describe('kgate drift command line', () => {
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'kgate-drift-cli-'));
    writeFileSync(join(dir, 'old.json'), spec({ type: 'integer', maximum: 1000 }));
    writeFileSync(join(dir, 'new.json'), spec({ type: 'integer', maximum: 100 }));
    writeFileSync(join(dir, 'wider.json'), spec({ type: 'integer', maximum: 5000 }));
    writeFileSync(join(dir, 'not-har.json'), '{"entries": []}');
    writeFileSync(join(dir, 'not-spec.yaml'), 'just: a map\n');
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  const USAGE_ERRORS: Array<{ given: string[]; want: RegExp }> = [
    { given: ['drift'], want: /needs a mode: live, spec, har or history/ },
    { given: ['drift', 'sideways'], want: /unknown mode 'sideways'/ },
    { given: ['drift', 'live', '--bogus'], want: /unknown option --bogus/ },
    { given: ['drift', 'live', 'extra'], want: /unexpected argument 'extra'/ },
    { given: ['drift', 'live', '--update-baseline'], want: /option --update-baseline needs --baseline FILE/ },
    { given: ['drift', 'live', '--baseline', '/nonexistent/baseline.json'], want: /option --baseline: no such file/ },
    {
      given: ['drift', 'live', '--baseline', '/nonexistent/dir/b.json', '--update-baseline'],
      want: /option --baseline: no such directory '\/nonexistent\/dir'/,
    },
    { given: ['drift', 'live', '--timeout', 'forever'], want: /option --timeout takes a duration/ },
    {
      given: ['drift', 'live', '--base-url', 'ftp://example.org'],
      want: /option --base-url takes an absolute http or https URL/,
    },
    { given: ['drift', 'spec', 'only-one.yaml'], want: /takes two spec files, OLD and NEW; got 1/ },
    { given: ['drift', 'spec', '/nonexistent/a.yaml', '/nonexistent/b.yaml'], want: /cannot read OLD spec/ },
    { given: ['drift', 'har'], want: /takes exactly one HAR file; got 0/ },
    { given: ['drift', 'har', '/nonexistent/x.har'], want: /cannot read '\/nonexistent\/x\.har'/ },
  ];
  for (const { given, want } of USAGE_ERRORS) {
    test(`kgate ${given.join(' ')} -> one line, exit 2`, async () => {
      const { code, err } = await kgate(given);
      assert.equal(code, 2);
      assert.equal(err.length, 1, err.join('\n'));
      assert.equal(err[0]!.includes('\n'), false);
      assert.match(err[0]!, want);
    });
  }

  test('a file that is not HAR or not OpenAPI is a usage error naming it', async () => {
    const notHar = await kgate(['drift', 'har', join(dir, 'not-har.json')]);
    assert.equal(notHar.code, 2);
    assert.match(notHar.err[0]!, /not-har\.json is not a HAR file/);
    const notSpec = await kgate(['drift', 'spec', join(dir, 'not-spec.yaml'), join(dir, 'old.json')]);
    assert.equal(notSpec.code, 2);
    assert.match(notSpec.err[0]!, /not-spec\.yaml' is not an OpenAPI document/);
  });

  test('--base-url without KGATE_KEY is a usage error', async () => {
    const saved = process.env.KGATE_KEY;
    delete process.env.KGATE_KEY;
    try {
      const { code, err } = await kgate(['drift', 'live', '--base-url', 'http://127.0.0.1:9']);
      assert.equal(code, 2);
      assert.match(err.at(-1)!, /no subscription key for http:\/\/127\.0\.0\.1:9: KGATE_KEY is not set/);
    } finally {
      if (saved !== undefined) process.env.KGATE_KEY = saved;
    }
  });

  test('drift spec exits 1 on a breaking change and explains it in one line', async () => {
    const { code, out } = await kgate(['drift', 'spec', join(dir, 'old.json'), join(dir, 'new.json')]);
    assert.equal(code, 1);
    assert.match(out[0]!, /^BREAKING limit-narrowed: GET \/x query parameter count: maximum 1000 -> 100/);
    assert.match(out.at(-1)!, /1 changes, 1 breaking/);
  });

  test('drift spec exits 0 on non-breaking changes and prints one JSON object with --json', async () => {
    const { code, out } = await kgate(['drift', 'spec', join(dir, 'old.json'), join(dir, 'wider.json'), '--json']);
    assert.equal(code, 0);
    assert.equal(out.length, 1);
    const parsed = JSON.parse(out[0]!);
    assert.deepEqual(parsed.summary, { changes: 1, breaking: 0, nonBreaking: 1 });
  });

  test('drift live: new drift exits 1, --update-baseline records it, the re-run exits 0', async () => {
    const server = await startReferenceServer({ quiet: true, papers: 2000 });
    const saved = process.env.KGATE_KEY;
    process.env.KGATE_KEY = server.keys.full;
    const baseline = join(dir, 'baseline.json');
    const common = ['--base-url', `${server.url}/faults/urlpreview-extra-field`, '--report-dir', join(dir, 'reports')];
    try {
      const first = await kgate(['drift', 'live', ...common]);
      assert.equal(first.code, 1, first.out.join('\n'));
      assert.ok(
        first.out.some((line) =>
          /^FAIL +undocumented-property GET \/urlpreview\/v7\.0\/search 200 \$\.isFamilyFriendly/.test(line),
        ),
      );
      const update = await kgate(['drift', 'live', ...common, '--baseline', baseline, '--update-baseline']);
      assert.equal(update.code, 0);
      const again = await kgate(['drift', 'live', ...common, '--baseline', baseline, '--json']);
      assert.equal(again.code, 0);
      const result = JSON.parse(again.out[0]!);
      assert.equal(result.summary.new, 0);
      assert.ok(result.summary.known > 0);
      // An earlier run's drift.json of another shape (no findings) is passed over, not read as one.
      const runs = join(dir, 'runs');
      mkdirSync(join(runs, '20261201T000000Z-aaaa'), { recursive: true });
      writeFileSync(join(runs, '20261201T000000Z-aaaa', 'drift.json'), '{"command":"drift","verdict":"error"}');
      const next = await kgate(['drift', 'live', ...common, '--report-dir', join(runs, '20261202T000000Z-bbbb')]);
      assert.equal(next.code, 1, next.out.join('\n'));
      assert.ok(existsSync(join(runs, '20261202T000000Z-bbbb', 'report.html')), 'its page is written');
      const everything = [...first.out, ...update.out, ...again.out].join('\n');
      assert.equal(everything.includes(server.keys.full), false, 'the key is never printed');
    } finally {
      if (saved === undefined) delete process.env.KGATE_KEY;
      else process.env.KGATE_KEY = saved;
      await server.close();
    }
  });

  test('the project spec compared with itself has no changes', async () => {
    const { code, out } = await kgate(['drift', 'spec', SPEC_PATH, SPEC_PATH]);
    assert.equal(code, 0);
    assert.deepEqual(out, ['drift spec: 0 changes, 0 breaking for existing clients']);
  });
});
