import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createAcademicEngine } from './engine.ts';

const engine = createAcademicEngine({ seed: 7, papers: 3000 });
const samples = engine.samples();
const AUTHOR = `Composite(AA.AuN=='${samples.author.canonical}')`;

type Entity = Record<string, unknown> & { prob: number };
type EvaluateBody = { expr: string; entities: Entity[]; aborted: boolean };
type ErrorBody = { error: { code: string; message: string } };
type HistogramBody = {
  expr: string;
  num_entities: number;
  histograms: {
    attribute: string;
    distinct_values: number;
    total_count: number;
    histogram: { value: string | number; prob: number; count: number }[];
  }[];
  aborted: boolean;
};

function ok(params: Record<string, string>): EvaluateBody {
  const result = engine.evaluate(params);
  assert.equal(result.status, 200, JSON.stringify(result.body));
  return result.body as EvaluateBody;
}

function histogram(params: Record<string, string>): HistogramBody {
  const result = engine.calchistogram(params);
  assert.equal(result.status, 200, JSON.stringify(result.body));
  return result.body as HistogramBody;
}

describe('evaluate rejects invalid parameters with 400 Bad Argument naming the parameter', () => {
  const cases: { given: Record<string, string>; want: string }[] = [
    { given: {}, want: 'expr' },
    { given: { expr: '' }, want: 'expr' },
    { given: { expr: 'Y=' }, want: 'expr' },
    { given: { expr: 'Y=2010', count: '-1' }, want: 'count' },
    { given: { expr: 'Y=2010', count: 'ten' }, want: 'count' },
    { given: { expr: 'Y=2010', count: '10001' }, want: 'count' },
    { given: { expr: 'Y=2010', count: '1.5' }, want: 'count' },
    { given: { expr: 'Y=2010', offset: '-3' }, want: 'offset' },
    { given: { expr: 'Y=2010', offset: ' 3' }, want: 'offset' },
    { given: { expr: 'Y=2010', model: 'beta' }, want: 'model' },
    { given: { expr: 'Y=2010', orderby: 'Foo' }, want: 'orderby' },
    { given: { expr: 'Y=2010', orderby: 'Y:up' }, want: 'orderby' },
    { given: { expr: 'Y=2010', orderby: 'AA.AuN' }, want: 'orderby' },
    { given: { expr: 'Y=2010', orderby: 'y:asc' }, want: 'orderby' },
    { given: { expr: 'Y=2010', attributes: 'Id,ti' }, want: 'attributes' },
    { given: { expr: 'Y=2010', attributes: 'AA.Name' }, want: 'attributes' },
  ];
  for (const { given, want } of cases) {
    it(`${JSON.stringify(given)} -> names ${want}`, () => {
      const result = engine.evaluate(given);
      assert.equal(result.status, 400);
      const body = result.body as ErrorBody;
      assert.equal(body.error.code, 'Bad Argument');
      assert.match(body.error.message, new RegExp(`\\b${want}\\b`));
    });
  }

  it('says where an expression broke', () => {
    const body = engine.evaluate({ expr: 'And(Y=2010,,Y=2011)' }).body as ErrorBody;
    assert.match(
      body.error.message,
      /expr.*at position 11: expected And\(\.\.\.\), Or\(\.\.\.\), Composite\(\.\.\.\) or an attribute but found ','/,
    );
  });
});

describe('evaluate answers', () => {
  it('echoes expr exactly and defaults to Id, count 10, descending prob', () => {
    const body = ok({ expr: ' Y>2000 ' });
    assert.equal(body.expr, ' Y>2000 ');
    assert.equal(body.aborted, false);
    assert.equal(body.entities.length, 10);
    for (const entity of body.entities) assert.deepEqual(Object.keys(entity), ['prob', 'Id']);
    for (let i = 1; i < body.entities.length; i++)
      assert.ok(body.entities[i - 1]!.prob >= body.entities[i]!.prob, 'entities come in descending prob');
  });

  it('pages with count and offset consistently', () => {
    const all = ok({ expr: 'Y>2010', count: '30' }).entities.map((e) => e.Id);
    const pages = [0, 10, 20].flatMap((offset) =>
      ok({ expr: 'Y>2010', count: '10', offset: String(offset) }).entities.map((e) => e.Id),
    );
    assert.deepEqual(pages, all);
    assert.deepEqual(ok({ expr: 'Y>2010', offset: '100000' }).entities, []);
    assert.deepEqual(ok({ expr: 'Y>2010', count: '0' }).entities, []);
  });

  it('accepts the page sizes real clients sent (count=1000 and count=10000)', () => {
    assert.equal(ok({ expr: 'Y>1900', count: '1000' }).entities.length, 1000, 'a page of 1000');
    assert.equal(ok({ expr: 'Y>1900', count: '10000' }).entities.length, 3000, 'every paper of the corpus');
  });

  const orders: { given: string; want: (a: number, b: number) => boolean }[] = [
    { given: 'Y', want: (a, b) => a <= b },
    { given: 'Y:asc', want: (a, b) => a <= b },
    { given: 'Y:desc', want: (a, b) => a >= b },
    { given: 'CC:desc', want: (a, b) => a >= b },
    { given: 'Id:asc', want: (a, b) => a < b },
  ];
  for (const { given, want } of orders) {
    it(`orders by ${given}`, () => {
      const attribute = given.split(':')[0]!;
      const body = ok({ expr: 'Y>1990', orderby: given, count: '50', attributes: `Id,${attribute}` });
      const values = body.entities.map((e) => e[attribute] as number);
      for (let i = 1; i < values.length; i++)
        assert.ok(want(values[i - 1]!, values[i]!), `${values[i - 1]} then ${values[i]}`);
    });
  }

  it('orders pages of an ordering consistently, ties by descending prob', () => {
    const all = ok({ expr: 'Y>1990', orderby: 'Y:desc', count: '40', attributes: 'Y' }).entities;
    const second = ok({ expr: 'Y>1990', orderby: 'Y:desc', count: '20', offset: '20', attributes: 'Y' }).entities;
    assert.deepEqual(second, all.slice(20));
    for (let i = 1; i < all.length; i++) {
      if (all[i - 1]!.Y === all[i]!.Y)
        assert.ok(all[i - 1]!.prob >= all[i]!.prob, 'ties in Y fall back to descending prob');
    }
  });

  it('groups composite attributes and returns only the requested parts', () => {
    const body = ok({ expr: AUTHOR, attributes: 'Ti,AA.AuN,F.FId,J.JN,C.CId', count: '50' });
    assert.ok(body.entities.length > 0, 'the sample author has papers');
    for (const entity of body.entities) {
      assert.equal(typeof entity.Ti, 'string');
      assert.equal(entity.Id, undefined);
      const authors = entity.AA as Record<string, unknown>[];
      assert.ok(
        authors.every((a) => Object.keys(a).join() === 'AuN'),
        'AA objects carry only AuN',
      );
      assert.ok(
        authors.some((a) => a.AuN === samples.author.canonical),
        'the matched author is listed',
      );
      assert.ok(
        (entity.F as Record<string, unknown>[]).every((f) => Object.keys(f).join() === 'FId'),
        'F objects carry only FId',
      );
      assert.ok(entity.J === undefined || Object.keys(entity.J as object).join() === 'JN', 'J carries only JN');
      assert.ok(entity.C === undefined || Object.keys(entity.C as object).join() === 'CId', 'C carries only CId');
      assert.ok(!(entity.J && entity.C), 'a paper is in a journal or a conference, not both');
      for (const value of Object.values(entity)) assert.notEqual(value, null);
    }
  });

  it('returns every attribute with its documented type', () => {
    const [entity] = ok({
      expr: `Id=${samples.paperIds[0]}`,
      attributes: 'Id,Ti,W,Y,D,CC,ECC,AA,F,J,C,RId,DOI',
    }).entities;
    assert.ok(entity, 'the paper exists');
    assert.equal(entity.Id, samples.paperIds[0]);
    assert.equal(entity.Ti, samples.titles[0]);
    assert.deepEqual(entity.W, [...new Set(samples.titles[0]!.split(' '))]);
    assert.match(entity.D as string, /^\d{4}-\d{2}-\d{2}$/);
    assert.equal(Number((entity.D as string).slice(0, 4)), entity.Y);
    assert.ok((entity.ECC as number) >= (entity.CC as number), 'ECC is at least CC');
    const [first] = entity.AA as Record<string, unknown>[];
    assert.deepEqual(
      Object.keys(first!).filter((k) => k !== 'AfN' && k !== 'AfId'),
      ['AuN', 'AuId', 'S'],
    );
    if (entity.DOI !== undefined) assert.equal(entity.DOI, (entity.DOI as string).toUpperCase());
  });

  it('distinguishes = (synonyms) from == (canonical only)', () => {
    const synonym = samples.author.synonym;
    assert.deepEqual(ok({ expr: `Composite(AA.AuN=='${synonym}')` }).entities, []);
    const viaSynonym = ok({ expr: `Composite(AA.AuN='${synonym}')`, count: '1000' }).entities.map((e) => e.Id);
    const canonical = ok({ expr: AUTHOR, count: '1000' }).entities.map((e) => e.Id);
    assert.ok(canonical.length > 0, 'the canonical name matches papers');
    assert.ok(
      canonical.every((id) => viaSynonym.includes(id)),
      '= with the synonym finds every paper of the canonical name',
    );
  });

  it('requires both parts on the same author inside one Composite, not across two', () => {
    const [entity] = ok({ expr: AUTHOR, attributes: 'AA.AuN,AA.AfN' }).entities;
    const authors = entity!.AA as { AuN: string; AfN?: string }[];
    const other = authors.find((a) => a.AuN !== samples.author.canonical && a.AfN !== undefined);
    const own = authors.find((a) => a.AuN === samples.author.canonical);
    if (!other || other.AfN === own?.AfN) return;
    const same = `Composite(And(AA.AuN=='${samples.author.canonical}',AA.AfN=='${other.AfN}'))`;
    const across = `And(${AUTHOR},Composite(AA.AfN=='${other.AfN}'))`;
    const acrossIds = ok({ expr: across, count: '1000' }).entities.map((e) => e.Id);
    const sameIds = ok({ expr: same, count: '1000' }).entities.map((e) => e.Id);
    assert.ok(acrossIds.length > sameIds.length, 'two Composites may match different authors, one may not');
    assert.ok(
      sameIds.every((id) => acrossIds.includes(id)),
      'same-author matches are a subset',
    );
  });

  it('answers long Or(...) lists as real clients sent them (thousands of arguments)', () => {
    const ids = ok({ expr: 'Y>1970', count: '1000' }).entities.map((e) => e.Id as number);
    const byId = ok({ expr: `Or(${ids.map((id) => `Id=${id}`).join(',')},Id=1,Id=-7)`, count: '1000' }).entities;
    assert.deepEqual(
      byId.map((e) => e.Id),
      ids,
    );
    const mixed = ok({ expr: `And(Or(${ids.map((id) => `Id=${id}`).join(',')},Y=1975),Y<1980)`, count: '1000' });
    const expected = ok({ expr: 'Y<1980', count: '1000', attributes: 'Id,Y' })
      .entities.filter((e) => e.Y === 1975 || ids.includes(e.Id as number))
      .map((e) => e.Id);
    assert.deepEqual(
      mixed.entities.map((e) => e.Id),
      expected,
    );
    const names = samples.authors.concat(samples.authors).flatMap((name) => Array(200).fill(name) as string[]);
    const composite = `Or(${names.map((name) => `Composite(AA.AuN=='${name}')`).join(',')})`;
    assert.ok(composite.length > 40_000, 'a long expression');
    assert.equal(engine.evaluate({ expr: composite }).status, 200);
  });

  it('gives partial results with aborted: true when the time budget is spent', () => {
    const slow = createAcademicEngine({ seed: 7, papers: 20_000, timeBudgetMs: 0 });
    const full = createAcademicEngine({ seed: 7, papers: 20_000 });
    const params = { expr: "DOI='10.'...", count: '1000', offset: '5000' };
    const body = slow.evaluate(params).body as EvaluateBody;
    assert.equal(body.aborted, true);
    assert.equal((full.evaluate(params).body as EvaluateBody).entities.length, 1000);
    assert.ok(body.entities.length < 1000, 'only part of the matches were found');
  });
});

describe('calchistogram agrees with evaluate', () => {
  const exprs = [AUTHOR, 'Y=[2000,2003]', `And(${AUTHOR},Y>2000)`, "Composite(F.FN=='machine learning')"];
  for (const expr of exprs) {
    it(expr, () => {
      const entities = ok({ expr, count: '1000', attributes: 'Y,AA.AuN,F.FN' }).entities;
      const body = histogram({ expr, attributes: 'Y,AA.AuN,F.FN', count: '1000' });
      assert.equal(body.expr, expr);
      assert.equal(body.aborted, false);
      assert.equal(body.num_entities, entities.length);
      assert.deepEqual(
        body.histograms.map((h) => h.attribute),
        ['Y', 'AA.AuN', 'F.FN'],
      );
      const expected = new Map<string, Map<string | number, number>>([
        ['Y', new Map()],
        ['AA.AuN', new Map()],
        ['F.FN', new Map()],
      ]);
      const add = (attribute: string, value: string | number) => {
        const counts = expected.get(attribute)!;
        counts.set(value, (counts.get(value) ?? 0) + 1);
      };
      for (const entity of entities) {
        add('Y', entity.Y as number);
        for (const name of new Set((entity.AA as { AuN: string }[]).map((a) => a.AuN))) add('AA.AuN', name);
        for (const field of entity.F as { FN: string }[]) add('F.FN', field.FN);
      }
      for (const h of body.histograms) {
        const counts = expected.get(h.attribute)!;
        assert.equal(h.distinct_values, counts.size);
        assert.equal(
          h.total_count,
          [...counts.values()].reduce((a, b) => a + b, 0),
        );
        assert.equal(h.histogram.length, Math.min(1000, counts.size));
        for (const entry of h.histogram) {
          assert.equal(entry.count, counts.get(entry.value));
          assert.ok(entry.prob > 0 && entry.prob <= 1, 'prob in (0, 1]');
        }
        for (let i = 1; i < h.histogram.length; i++) {
          const [a, b] = [h.histogram[i - 1]!, h.histogram[i]!];
          assert.ok(
            a.count > b.count || (a.count === b.count && a.value < b.value),
            'descending count, then ascending value',
          );
        }
      }
    });
  }

  it('pages each histogram by count and offset', () => {
    const all = histogram({ expr: 'Y>1990', attributes: 'AA.AuN', count: '30' }).histograms[0]!.histogram;
    const page = histogram({ expr: 'Y>1990', attributes: 'AA.AuN', count: '10', offset: '20' }).histograms[0]!
      .histogram;
    assert.deepEqual(page, all.slice(20));
  });

  it('has no histogram without attributes, and rejects composite group names', () => {
    const body = histogram({ expr: 'Y=2010' });
    assert.deepEqual(body.histograms, []);
    assert.ok(body.num_entities > 0, 'Y=2010 matches papers');
    const bad = engine.calchistogram({ expr: 'Y=2010', attributes: 'AA' });
    assert.equal(bad.status, 400);
    assert.match((bad.body as ErrorBody).error.message, /attributes/);
    assert.equal(engine.calchistogram({ attributes: 'Y' }).status, 400);
  });
});
