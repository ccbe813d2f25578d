import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { startReferenceServer } from '../../reference/index.ts';
import { kgateInProcess as kgate } from '../../scripts/kgate-in-process.ts';

const FAULT = 'urlpreview-extra-field';
const FINDING = /undocumented-property GET \/urlpreview\/v7\.0\/search 200 \$\.isFamilyFriendly/;

/**
 * One deployment at one URL whose behaviour changes between nights: a proxy in front of the
 * reference server that forwards to its clean routes, or to a fault's while `fault` is set.
 */
function startSwitchingTarget(
  upstream: string,
): Promise<{ server: Server; url: string; setFault(name?: string): void }> {
  let fault: string | undefined;
  const target = new URL(upstream);
  const server = createServer((incoming, outgoing) => {
    const path = `${target.pathname.replace(/\/$/, '')}${fault ? `/faults/${fault}` : ''}${incoming.url}`;
    const forward = request(
      { host: target.hostname, port: target.port, method: incoming.method, path, headers: incoming.headers },
      (answer) => {
        outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(outgoing);
      },
    );
    forward.on('error', () => outgoing.destroy());
    incoming.pipe(forward);
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve({
        server,
        url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
        setFault: (name) => {
          fault = name;
        },
      }),
    ),
  );
}

describe('kgate drift live --history, kgate drift history', () => {
  let dir: string;
  let reference: Awaited<ReturnType<typeof startReferenceServer>>;
  let target: Awaited<ReturnType<typeof startSwitchingTarget>>;
  let savedKey: string | undefined;
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'kgate-drift-history-'));
    reference = await startReferenceServer({ quiet: true, papers: 2000 });
    target = await startSwitchingTarget(reference.url);
    savedKey = process.env.KGATE_KEY;
    process.env.KGATE_KEY = reference.keys.full;
  });
  after(async () => {
    if (savedKey === undefined) delete process.env.KGATE_KEY;
    else process.env.KGATE_KEY = savedKey;
    await new Promise((resolve) => target.server.close(resolve));
    await reference.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const live = (history: string, ...more: string[]) =>
    kgate([
      'drift',
      'live',
      '--base-url',
      target.url,
      '--history',
      history,
      '--report-dir',
      join(dir, 'reports'),
      ...more,
    ]);

  test('three nights, drift on the second only: new, then gone; the history shows first and last seen', async () => {
    const history = join(dir, 'history.jsonl');
    const first = await live(history, '--json');
    assert.equal(first.code, 0, first.err.join('\n'));
    assert.deepEqual(JSON.parse(first.out[0]!).history.counts, { new: 0, ongoing: 0, flaky: 0, gone: 0 });

    target.setFault(FAULT);
    const second = await live(history);
    target.setFault(undefined);
    assert.equal(second.code, 1, 'drift not in a baseline fails as before');
    const newLine = second.out.find((line) => line.startsWith('history: ') && FINDING.test(line));
    assert.match(newLine ?? '', /^history: NEW +undocumented-property .*: new; first seen/, second.out.join('\n'));
    const summary = second.out.find((line) => line.startsWith('drift history: ')) ?? '';
    assert.match(summary, /^drift history: 1 change \(1 new, 0 ongoing, 0 flaky, 0 gone\) at 1 place over 2 run\(s\)/);
    const page = summary.match(/timeline: (.*history\.html)\)/)?.[1];
    assert.ok(page && existsSync(page), `history.html written (${summary})`);
    assert.match(readFileSync(page, 'utf8'), /GET \/urlpreview\/v7\.0\/search/);

    const third = await live(history, '--json');
    assert.equal(third.code, 0);
    const report = JSON.parse(third.out[0]!).history;
    const entry = report.findings.find((item: { path: string }) => item.path === '$.isFamilyFriendly');
    assert.equal(entry.state, 'gone');
    assert.equal(entry.since, report.runs[2].at, 'gone since the third run');
    assert.equal(entry.firstSeen, report.runs[1].at);
    assert.equal(entry.lastSeen, report.runs[1].at);
    assert.equal(entry.timesSeen, 1);
    const markdown = readFileSync(JSON.parse(third.out[0]!).report.markdown, 'utf8');
    assert.match(markdown, /## History/);
    assert.match(markdown, /gone since/);

    const printed = await kgate(['drift', 'history', history]);
    assert.equal(printed.code, 0);
    const line = printed.out.find((item) => FINDING.test(item));
    const day = (iso: string) => `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC`;
    assert.match(line ?? '', /^gone +undocumented-property/);
    assert.ok(line!.includes(`first seen ${day(entry.firstSeen)}, last seen ${day(entry.lastSeen)}, 1x`), line);
    assert.match(
      printed.out.at(-1)!,
      /3 run\(s\): \d+ changes? \(0 new, 0 ongoing, 0 flaky, \d+ gone\) at \d+ places?/,
    );

    const json = await kgate(['drift', 'history', history, '--json', '--since', report.runs[2].at]);
    const since = JSON.parse(json.out[0]!);
    assert.equal(since.runs.length, 1);
    assert.ok(since.findings.some((item: { path: string; state: string }) => item.path === '$.isFamilyFriendly'));

    const everything = [...first.out, ...second.out, ...third.out, ...printed.out, readFileSync(history, 'utf8')];
    assert.equal(everything.join('\n').includes(reference.keys.full), false, 'the key is never written');
  });

  test('a corrupt last line is named, and the next run keeps every earlier entry', async () => {
    const history = join(dir, 'corrupt.jsonl');
    target.setFault(FAULT);
    await live(history, '--json');
    await live(history, '--json');
    target.setFault(undefined);
    const lines = readFileSync(history, 'utf8').trim().split('\n');
    writeFileSync(history, `${lines.join('\n')}\n{"type":"run","run":"cut off`);
    const shown = await kgate(['drift', 'history', history]);
    assert.equal(shown.code, 0);
    assert.match(shown.err[0]!, new RegExp(`corrupt\\.jsonl line ${lines.length + 1} skipped: not JSON`));
    const next = await live(history, '--json');
    assert.equal(next.code, 0);
    assert.ok(
      next.err.some((line) => new RegExp(`line ${lines.length + 1} skipped`).test(line)),
      `the damage is named: ${next.err.join('\n')}`,
    );
    const now = readFileSync(history, 'utf8').trim().split('\n');
    assert.deepEqual(now.slice(0, lines.length), lines, 'every earlier entry kept as it was');
    assert.ok(now.length > lines.length, 'and the new run appended');
    for (const text of now) JSON.parse(text);
    const entry = JSON.parse(next.out[0]!).history.findings.find(
      (item: { path: string }) => item.path === '$.isFamilyFriendly',
    );
    assert.deepEqual([entry.state, entry.timesSeen], ['gone', 2]);
  });

  test('a history of another target is refused in one line, exit 2, and left as it was', async () => {
    const history = join(dir, 'history.jsonl');
    const before = readFileSync(history, 'utf8');
    const other = await kgate(['drift', 'live', '--base-url', `${reference.url}`, '--history', history]);
    assert.equal(other.code, 2);
    assert.equal(other.err.length, 1);
    assert.match(
      other.err[0]!,
      /option --history: .*history\.jsonl is the drift history of http:\/\/127\.0\.0\.1:\d+, not of/,
    );
    assert.equal(readFileSync(history, 'utf8'), before);
  });

  const USAGE_ERRORS: Array<{ given: string[]; want: RegExp }> = [
    { given: ['drift', 'history'], want: /takes exactly one history file; got 0/ },
    { given: ['drift', 'history', '/nonexistent/h.jsonl'], want: /no such file '\/nonexistent\/h\.jsonl'/ },
    { given: ['drift', 'history', 'x.jsonl', '--since', 'yesterday'], want: /option --since takes a date/ },
    { given: ['drift', 'live', '--history', '/nonexistent/dir/h.jsonl'], want: /option --history: no such directory/ },
  ];
  for (const { given, want } of USAGE_ERRORS) {
    test(`kgate ${given.join(' ')} -> one line, exit 2`, async () => {
      const { code, err } = await kgate(given);
      assert.equal(code, 2);
      assert.equal(err.length, 1, err.join('\n'));
      assert.match(err[0]!, want);
    });
  }

  test('a file that is not a history is refused and not overwritten', async () => {
    const file = join(dir, 'package.json');
    writeFileSync(file, '{"name":"x"}\n');
    const shown = await kgate(['drift', 'history', file]);
    assert.equal(shown.code, 2);
    assert.match(shown.err[0]!, /line 1 is not a kgate drift history header/);
    const run = await kgate(['drift', 'live', '--history', file]);
    assert.equal(run.code, 2);
    assert.equal(readFileSync(file, 'utf8'), '{"name":"x"}\n');
  });
});
