import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createAcademicEngine } from './engine.ts';
import { escapeXml, tokenize } from './interpret.ts';

const engine = createAcademicEngine({ seed: 7, papers: 3000 });
const { author, initialsAuthor } = engine.samples();

type Interpretation = {
  prob: number;
  parse: string;
  rules: { name: string; output: { type: string; value: string } }[];
};
type InterpretBody = { query: string; interpretations: Interpretation[]; aborted: boolean };

function interpret(params: Record<string, string>): InterpretBody {
  const result = engine.interpret(params);
  assert.equal(result.status, 200, JSON.stringify(result.body));
  return result.body as InterpretBody;
}

describe('interpret finds the intended reading first', () => {
  const cases: { given: string; want: { parse: string; value: string } }[] = [
    {
      given: `papers by ${author.canonical}`,
      want: {
        parse: `<rule id="#GetPapers">papers by <attr name="academic#AA.AuN">${author.canonical}</attr></rule>`,
        value: `Composite(AA.AuN=='${author.canonical}')`,
      },
    },
    {
      given: `Papers by ${author.canonical.toUpperCase()} after 1990`,
      want: {
        parse: `<rule id="#GetPapers">papers by <attr name="academic#AA.AuN">${author.canonical}</attr> after <attr name="academic#Y" op="gt">1990</attr></rule>`,
        value: `And(Composite(AA.AuN=='${author.canonical}'),Y>1990)`,
      },
    },
    {
      given: 'machine learning papers',
      want: {
        parse: '<rule id="#GetPapers"><attr name="academic#F.FN">machine learning</attr> papers</rule>',
        value: "Composite(F.FN=='machine learning')",
      },
    },
    {
      given: 'papers in sigir before 2000',
      want: {
        parse:
          '<rule id="#GetPapers">papers in <attr name="academic#C.CN">sigir</attr> before <attr name="academic#Y" op="lt">2000</attr></rule>',
        value: "And(Composite(C.CN=='sigir'),Y<2000)",
      },
    },
  ];
  for (const { given, want } of cases) {
    it(given, () => {
      const [first] = interpret({ query: given }).interpretations;
      assert.ok(first, 'at least one interpretation');
      assert.equal(first.parse, want.parse);
      assert.deepEqual(first.rules, [{ name: '#GetPapers', output: { type: 'query', value: want.value } }]);
    });
  }

  it('marks a synonym with canonical="..." and queries the canonical value', () => {
    const { interpretations } = interpret({ query: `papers by ${author.synonym}`, count: '20' });
    const hit = interpretations.find((i) => i.parse.includes(`canonical="${author.canonical}"`));
    assert.ok(hit, `an interpretation maps ${author.synonym} to ${author.canonical}`);
    assert.equal(
      hit.parse,
      `<rule id="#GetPapers">papers by <attr name="academic#AA.AuN" canonical="${author.canonical}">${author.synonym}</attr></rule>`,
    );
    assert.equal(hit.rules[0]!.output.value, `Composite(AA.AuN=='${author.canonical}')`);
    const initials = interpret({ query: `papers by ${initialsAuthor.synonym}`, count: '20' }).interpretations;
    assert.ok(
      initials.some((i) => i.rules[0]!.output.value === `Composite(AA.AuN=='${initialsAuthor.canonical}')`),
      `${initialsAuthor.synonym} reads as ${initialsAuthor.canonical}`,
    );
  });

  it('completes the last word as a prefix with complete=1 only', () => {
    const prefix = author.canonical.split(' ')[0]!;
    const completed = interpret({ query: `papers by ${prefix}`, complete: '1' }).interpretations;
    assert.ok(completed.length > 1, 'several completions');
    assert.ok(
      completed.some((i) => i.parse.includes(`>${author.canonical}</attr>`)),
      'the sample author is among them',
    );
    for (const i of completed)
      assert.match(i.parse, new RegExp(`papers by <attr name="academic#AA\\.AuN"[^>]*>${prefix}`));
    const plain = interpret({ query: `papers by ${prefix}`, complete: '0' }).interpretations;
    assert.ok(
      plain.every((i) => !i.parse.includes(`>${author.canonical}</attr>`)),
      'no completion without complete=1',
    );
  });

  it('sorts by descending prob and pages with count and offset', () => {
    const query = `papers by ${author.canonical.slice(0, 2)}`;
    const all = interpret({ query, complete: '1', count: '6' }).interpretations;
    assert.ok(all.length >= 4, 'enough interpretations to page');
    for (let i = 1; i < all.length; i++) assert.ok(all[i - 1]!.prob >= all[i]!.prob, 'descending prob');
    const page = interpret({ query, complete: '1', count: '2', offset: '2' }).interpretations;
    assert.deepEqual(page, all.slice(2, 4));
  });

  it('echoes the query exactly and answers nothing for unknown words', () => {
    const body = interpret({ query: '  zzqx   blorp ' });
    assert.equal(body.query, '  zzqx   blorp ');
    assert.deepEqual(body.interpretations, []);
    assert.equal(body.aborted, false);
  });

  it('returns only what was found before the timeout, with aborted: true', () => {
    const body = interpret({ query: `papers by ${author.canonical}`, timeout: '0' });
    assert.deepEqual(body.interpretations, []);
    assert.equal(body.aborted, true);
  });
});

describe('samples()', () => {
  const samples = engine.samples();
  for (const expr of samples.expressions) {
    it(`expression ${expr} matches a paper`, () => {
      const result = engine.evaluate({ expr, count: '1' });
      assert.equal(result.status, 200);
      assert.equal((result.body as { entities: unknown[] }).entities.length, 1);
    });
  }
  for (const query of samples.queries) {
    it(`query "${query}" has an interpretation`, () => {
      assert.ok(interpret({ query }).interpretations.length > 0, 'at least one interpretation');
    });
  }
});

describe('interpret rejects invalid parameters naming them', () => {
  const cases: { given: Record<string, string>; want: string }[] = [
    { given: {}, want: 'query' },
    { given: { query: '' }, want: 'query' },
    { given: { query: 'x', complete: 'true' }, want: 'complete' },
    { given: { query: 'x', complete: '2' }, want: 'complete' },
    { given: { query: 'x', count: '10001' }, want: 'count' },
    { given: { query: 'x', offset: 'a' }, want: 'offset' },
    { given: { query: 'x', timeout: '-5' }, want: 'timeout' },
    { given: { query: 'x', timeout: '1.5' }, want: 'timeout' },
    { given: { query: 'x', model: 'v2' }, want: 'model' },
  ];
  for (const { given, want } of cases) {
    it(`${JSON.stringify(given)} -> ${want}`, () => {
      const result = engine.interpret(given);
      assert.equal(result.status, 400);
      const body = result.body as { error: { code: string; message: string } };
      assert.equal(body.error.code, 'Bad Argument');
      assert.match(body.error.message, new RegExp(`\\b${want}\\b`));
    });
  }
});

describe('helpers', () => {
  const escapes: { given: string; want: string }[] = [
    { given: 'plain', want: 'plain' },
    { given: `a<b>&"c'`, want: 'a&lt;b&gt;&amp;&quot;c&apos;' },
  ];
  for (const { given, want } of escapes) it(`escapeXml(${given})`, () => assert.equal(escapeXml(given), want));

  const tokens: { given: string; want: string[] }[] = [
    { given: 'Papers by  Jaime-Teevan!', want: ['papers', 'by', 'jaime', 'teevan'] },
    { given: '   ', want: [] },
  ];
  for (const { given, want } of tokens)
    it(`tokenize(${JSON.stringify(given)})`, () => assert.deepEqual(tokenize(given), want));
});
