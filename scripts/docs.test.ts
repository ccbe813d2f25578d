// What the project's Markdown promises a reader: a README read top down (short, the two commands on
// its first screen), and relative links that lead somewhere: to a file of the repository and, with
// an anchor, to a heading of that file as GitHub makes its anchors.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, describe, test } from 'node:test';
import { anchorsOf, brokenLinks, linksOf, markdownFiles, slug } from './docs.ts';

const ROOT = join(import.meta.dirname, '..');
/** At most this many lines: what a newcomer reads before the area READMEs and docs/ take over. */
const README_MAX_LINES = 250;
/** The README's first screen, which must hold the two commands. */
const FIRST_SCREEN_LINES = 60;

describe('the README', () => {
  const lines = readFileSync(join(ROOT, 'README.md'), 'utf8').replace(/\n$/, '').split('\n');

  test(`is at most ${README_MAX_LINES} lines`, () => {
    assert.ok(lines.length <= README_MAX_LINES, `README.md has ${lines.length} lines`);
  });

  test(`holds the two commands in its first ${FIRST_SCREEN_LINES} lines`, () => {
    const screen = lines.slice(0, FIRST_SCREEN_LINES).join('\n');
    for (const command of ['npm ci && npm start', 'npm test'])
      assert.ok(screen.includes(command), `\`${command}\` in the first ${FIRST_SCREEN_LINES} lines of README.md`);
    assert.match(screen, /embedded reference server/, 'the first screen names the embedded reference server');
  });
});

describe('the Markdown files of the repository', () => {
  test('are found: the README, docs/, every room with one, and reports/README.md only of reports/', () => {
    const files = markdownFiles(ROOT);
    for (const file of ['README.md', 'docs/ci.md', 'contracts/README.md', 'run/README.md', 'reports/README.md'])
      assert.ok(files.includes(file), file);
    assert.deepEqual(
      files.filter((file) => /^(node_modules|dist|reports)\//.test(file) && file !== 'reports/README.md'),
      [],
      'nothing installed, built or written by runs',
    );
  });

  test('link only to files that exist, and to headings those files have', () => {
    assert.deepEqual(brokenLinks(ROOT), []);
  });
});

describe('GitHub anchors of headings', () => {
  const cases: { given: string; want: string }[] = [
    { given: 'Running it', want: 'running-it' },
    { given: 'Sharded runs: `kgate report merge`', want: 'sharded-runs-kgate-report-merge' },
    {
      given: 'History of a scheduled job: `--history FILE`, `kgate drift history`',
      want: 'history-of-a-scheduled-job---history-file-kgate-drift-history',
    },
    { given: '`kgate drift spec OLD.yaml NEW.yaml`', want: 'kgate-drift-spec-oldyaml-newyaml' },
    {
      given: 'Behind a front server (`load/front-server.test.ts`)',
      want: 'behind-a-front-server-loadfront-servertestts',
    },
    { given: 'Node.js', want: 'nodejs' },
    { given: 'Severity: required, expected, optional', want: 'severity-required-expected-optional' },
    { given: 'What **is** [left](x.md)', want: 'what-is-left' },
    { given: 'snake_case stays', want: 'snake_case-stays' },
  ];
  for (const { given, want } of cases) test(`${given} -> #${want}`, () => assert.equal(slug(given), want));

  test('a repeated heading gets -1, -2; a heading inside a code block is none', () => {
    const anchors = anchorsOf('# A\n\n## Notes\n\n```\n# not a heading\n```\n\n## Notes\n\n## Notes\n');
    assert.deepEqual([...anchors].sort(), ['a', 'notes', 'notes-1', 'notes-2']);
  });
});

describe('links found in a Markdown text', () => {
  const cases: { given: string; want: string[] }[] = [
    { given: 'see [the run](run/README.md#speed).', want: ['run/README.md#speed'] },
    { given: '[a](<with space.md>) and ![img](pic.png "title")', want: ['with space.md', 'pic.png'] },
    { given: '[ref]: docs/ci.md', want: ['docs/ci.md'] },
    { given: 'in code: `[not](a-link.md)`', want: [] },
    { given: '```\n[not](a-link.md)\n```', want: [] },
    { given: '[web](https://example.org/x.md)', want: ['https://example.org/x.md'] },
  ];
  for (const { given, want } of cases)
    test(JSON.stringify(given), () =>
      assert.deepEqual(
        linksOf(given).map((link) => link.target),
        want,
      ),
    );
});

describe('a broken link fails', () => {
  const dir = mkdtempSync(join(tmpdir(), 'kgate-docs-'));
  after(() => rmSync(dir, { recursive: true, force: true }));
  const write = (files: Record<string, string>): string => {
    const root = mkdtempSync(join(dir, 'repo-'));
    for (const [path, text] of Object.entries(files)) {
      mkdirSync(dirname(join(root, path)), { recursive: true });
      writeFileSync(join(root, path), text);
    }
    return root;
  };
  const target = { 'run/README.md': '# run/\n\n## Pacing and the request count\n\ntext\n', 'run/run.ts': '' };
  const cases: { name: string; given: Record<string, string>; want: string[] }[] = [
    {
      name: 'a link to a file and heading that exist',
      given: { ...target, 'README.md': 'See [pacing](run/README.md#pacing-and-the-request-count).\n' },
      want: [],
    },
    {
      name: 'a link to a file that does not exist',
      given: { ...target, 'README.md': 'See [pacing](contracts/README.md#pacing-and-the-request-count).\n' },
      want: ['README.md:1: contracts/README.md#pacing-and-the-request-count: no such file'],
    },
    {
      name: 'a link to a heading the file does not have',
      given: { ...target, 'README.md': 'intro\n\nSee [pacing](run/README.md#pacing).\n' },
      want: ['README.md:3: run/README.md#pacing: no heading with that anchor in run/README.md'],
    },
    {
      name: 'a link to a heading of the same file',
      given: { ...target, 'docs/a.md': '# A\n\n[up](#a) [gone](#b)\n' },
      want: ['docs/a.md:3: #b: no heading with that anchor in docs/a.md'],
    },
    {
      name: 'a relative link from a room up and across',
      given: { ...target, 'http/README.md': '[ok](../run/README.md) [not](../run/README.txt)\n' },
      want: ['http/README.md:1: ../run/README.txt: no such file'],
    },
    {
      name: 'a link out of the repository',
      given: { ...target, 'README.md': '[shared](../shared/interface.md)\n' },
      want: ['README.md:1: ../shared/interface.md: outside the repository'],
    },
    {
      name: 'an anchor on a source file is a line, not a heading',
      given: { ...target, 'README.md': '[line](run/run.ts#L3) [heading](run/run.ts#pacing)\n' },
      want: ['README.md:1: run/run.ts#pacing: an anchor on a file that has no headings'],
    },
    {
      name: "the Markdown a run writes, or a package brings, is not the project's",
      given: {
        ...target,
        'reports/README.md': '[ok](../run/README.md)\n',
        'reports/conformance/x/summary.md': '[broken](nowhere.md)\n',
        'node_modules/pkg/README.md': '[broken](nowhere.md)\n',
        'dist/README.md': '[broken](nowhere.md)\n',
      },
      want: [],
    },
    {
      name: 'but reports/README.md is',
      given: { ...target, 'reports/README.md': '[broken](nowhere.md)\n' },
      want: ['reports/README.md:1: nowhere.md: no such file'],
    },
  ];
  for (const { name, given, want } of cases) test(name, () => assert.deepEqual(brokenLinks(write(given)), want));
});
