import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Corpus, formatDate, MAX_PAPERS, parseDate, postingsOf } from './corpus.ts';
import { LruCache } from './lru.ts';
import { NameTable } from './names.ts';

function fingerprint(corpus: Corpus): string {
  const parts: string[] = [];
  for (let doc = 0; doc < corpus.size; doc += Math.max(1, Math.floor(corpus.size / 50))) {
    const g = corpus.byRank[doc]!;
    parts.push(`${corpus.id[g]}|${corpus.title(g)}|${corpus.dateString(g)}|${corpus.cc[g]}|${corpus.doi(g)}`);
  }
  return parts.join('\n');
}

describe('Corpus', () => {
  it('is the same for the same seed and different for another seed', () => {
    const a = fingerprint(new Corpus({ seed: 3, papers: 800 }));
    assert.equal(fingerprint(new Corpus({ seed: 3, papers: 800 })), a);
    assert.notEqual(fingerprint(new Corpus({ seed: 4, papers: 800 })), a);
  });

  const corpus = new Corpus({ seed: 5, papers: 2000 });

  it('numbers documents by descending prob, ties by ascending Id', () => {
    for (let doc = 1; doc < corpus.size; doc++) {
      const [p, q] = [corpus.probByRank[doc - 1]!, corpus.probByRank[doc]!];
      assert.ok(p > q || (p === q && corpus.paperId(doc - 1) < corpus.paperId(doc)), `rank ${doc}`);
      assert.ok(q > 0 && q <= 1, 'prob in (0, 1]');
    }
  });

  it('finds papers back from their Id and DOI', () => {
    for (let doc = 0; doc < corpus.size; doc += 37) {
      const g = corpus.byRank[doc]!;
      assert.equal(corpus.docById(corpus.id[g]!), doc);
      const doi = corpus.doi(g);
      if (doi) assert.equal(corpus.docByDoi(doi.toLowerCase()), doc);
    }
    assert.equal(corpus.docById(12), -1);
    assert.equal(corpus.docByDoi('10.1145/NOPE.2000.1'), -1);
  });

  it('keeps every paper consistent: D in Y, references to earlier papers, ECC >= CC', () => {
    for (let g = 0; g < corpus.size; g++) {
      assert.equal(Math.floor(corpus.date[g]! / 10000), corpus.year[g]);
      assert.ok(corpus.ecc[g]! >= corpus.cc[g]!, 'ECC >= CC');
      for (let i = corpus.refOff[g]!; i < corpus.refOff[g + 1]!; i++)
        assert.ok(corpus.refs[i]! < g, 'cites older papers');
    }
  });

  it('lists each document once per key, ascending, in every index', () => {
    corpus.buildIndexes();
    const postings = corpus.authorNamePostings();
    for (let key = 0; key < corpus.authorNames.values.length; key++) {
      const docs = postingsOf(postings, key);
      for (let i = 1; i < docs.length; i++) assert.ok(docs[i - 1]! < docs[i]!, 'strictly ascending');
    }
  });

  it('rejects sizes out of range', () => {
    assert.throws(() => new Corpus({ seed: 1, papers: 0 }), RangeError);
    assert.throws(() => new Corpus({ seed: 1, papers: MAX_PAPERS + 1 }), RangeError);
  });
});

describe('dates', () => {
  const cases: { given: string; want: number }[] = [
    { given: '2010-02-04', want: 20100204 },
    { given: '2012-02-29', want: 20120229 },
    { given: '2011-02-29', want: -1 },
    { given: '1900-02-29', want: -1 },
    { given: '2000-02-29', want: 20000229 },
    { given: '2010-13-01', want: -1 },
    { given: '2010-00-10', want: -1 },
    { given: '2010-1-1', want: -1 },
    { given: '2010-04-31', want: -1 },
  ];
  for (const { given, want } of cases) {
    it(`parseDate(${given})`, () => {
      assert.equal(parseDate(given), want);
      if (want > 0) assert.equal(formatDate(want), given);
    });
  }
});

describe('NameTable', () => {
  const table = new NameTable();
  const teevan = table.intern('jaime teevan');
  const green = table.intern('j l green');
  table.addSynonym(teevan, 'j teevan');
  table.addSynonym(green, 'jaime green');
  const jaimeGreen = table.intern('jaime green');
  const cases: { given: [string, boolean]; want: number[] }[] = [
    { given: ['jaime teevan', true], want: [teevan] },
    { given: ['j teevan', true], want: [] },
    { given: ['j teevan', false], want: [teevan] },
    { given: ['jaime green', false], want: [jaimeGreen, green] },
    { given: ['jaime green', true], want: [jaimeGreen] },
  ];
  for (const { given, want } of cases) {
    it(`lookup(${given.join(', ')})`, () => assert.deepEqual(table.lookup(...given), want));
  }
  it('finds canonical values and synonyms by prefix', () => {
    assert.deepEqual(
      table.idsWithPrefix('jaime', false),
      [teevan, green, jaimeGreen].sort((a, b) => a - b),
    );
    assert.deepEqual(
      table.idsWithPrefix('jaime', true),
      [teevan, jaimeGreen].sort((a, b) => a - b),
    );
    assert.deepEqual(table.idsWithPrefix('x', false), []);
  });
});

describe('LruCache', () => {
  it('evicts the least recently used entry by count and by weight', () => {
    const cache = new LruCache<string, number>(2, 10);
    cache.set('a', 1);
    cache.set('b', 2);
    cache.get('a');
    cache.set('c', 3);
    assert.deepEqual([cache.get('a'), cache.get('b'), cache.get('c')], [1, undefined, 3]);
    cache.set('heavy', 4, 9);
    assert.deepEqual([cache.get('a'), cache.get('c'), cache.get('heavy')], [undefined, 3, 4]);
    cache.set('too heavy', 5, 11);
    assert.equal(cache.get('too heavy'), undefined);
  });
});
