import assert from 'node:assert/strict';
import { test } from 'node:test';
import { registerSecret } from '../config/redact.ts';
import { banner, chips, fold, mark, PAGE_TEXT_LIMIT, PAGE_TEXT_START, table } from './components.ts';
import { escapeHtml, html, text } from './html.ts';

test('text masks, then escapes; escapeHtml escapes what HTML and double-quoted attributes need', () => {
  registerSecret('page-kit-test-key-55aa');
  const cases = [
    { of: escapeHtml, given: '<a href="x">&</a>', want: '&lt;a href=&quot;x&quot;&gt;&amp;&lt;/a&gt;' },
    { of: text, given: 'key=page-kit-test-key-55aa <b>', want: 'key=*** &lt;b&gt;' },
    { of: text, given: "curl -H 'Ocp-Apim-Subscription-Key: abc'", want: "curl -H 'Ocp-Apim-Subscription-Key: ***'" },
  ];
  for (const { of, given, want } of cases) assert.equal(of(given), want, given);
});

test('fold: short text whole; long text its start and length, the whole of it in a <details> under the id', () => {
  const short = 'curl -sS http://h/x';
  assert.equal(fold(short, { id: 'c', pre: true }), `<pre id="c">${short}</pre>`);
  assert.equal(fold('plain'), 'plain', 'no element for plain short text');
  const long = `curl -sS 'http://h/e?expr=${'Id%3D1%2C'.repeat(300)}'`;
  const folded = fold(long, { id: 'c', pre: true });
  assert.match(folded, /^<details class="fold"><summary><pre class="start">curl -sS/);
  assert.ok(folded.includes(`(${long.length.toLocaleString('en-US')} characters: show all)`), 'its length');
  assert.ok(folded.includes(`<pre id="c">${long}</pre></details>`), 'the whole line under the id');
  assert.ok(long.length > PAGE_TEXT_LIMIT);
  assert.ok(folded.includes(`${long.slice(0, PAGE_TEXT_START)}…</pre>`), 'its start');
});

test('every state is an icon, a word and a class; chips and banner say the verdict in words', () => {
  assert.equal(mark('fail'), '<span class="mark fail"><span aria-hidden="true">✗</span> FAIL</span>');
  assert.equal(mark('pass', 'alike'), '<span class="mark pass"><span aria-hidden="true">✓</span> alike</span>');
  assert.equal(
    chips([
      { label: 'failed', value: 2, cell: 'fail' },
      { label: 'warnings', value: 0, cell: 'warn' },
    ]),
    '<ul class="counts"><li class="chip fail" data-count="failed"><b>2</b> failed</li><li class="chip zero" data-count="warnings"><b>0</b> warnings</li></ul>',
  );
  const page = banner({ tool: 'kgate x', verdict: 'info', word: 'HISTORY', headline: 'h', facts: [], counts: [] });
  assert.match(page, /<header class="banner info" id="verdict">/);
  assert.match(page, /<span class="word">HISTORY<\/span>/);
});

test('table: the first cell heads its row, numbers align right, component HTML is kept, text is escaped', () => {
  const out = table({
    id: 't',
    columns: ['operation', { title: 'requests', numeric: true }, 'state'],
    rows: [{ cells: ['GET /a<b>', 12, html(mark('fail'))], tone: 'fail' }],
  });
  assert.ok(
    out.includes(
      '<tr class="fail"><th scope="row">GET /a&lt;b&gt;</th><td class="num">12</td><td><span class="mark fail">',
    ),
  );
  assert.ok(out.includes('<th scope="col" class="num">requests</th>'));
});
