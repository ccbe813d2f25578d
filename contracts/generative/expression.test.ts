import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  EXPRESSION_EDGES,
  EXPRESSION_FEATURES,
  EXPRESSION_MUTATIONS,
  type Expression,
  ExpressionGenerator,
  type ExprNode,
  parseExpression,
  renderExpression,
  shrinkExpression,
} from './expression.ts';
import { Random } from './random.ts';
import { DEFAULT_POOLS } from './values.ts';

test('the parser accepts every form facts.md shows', () => {
  const valid = [
    "Ti='indexing by latent semantic analysis'",
    "Ti=='indexing by latent semantic analysis'",
    "Ti='indexing by latent seman'...",
    'Y=2010',
    'Y>2005',
    'Y>=2005',
    'Y<2010',
    'Y<=2010',
    'Y=[2010,2012)',
    'Y=[2010,2012]',
    "Y='19'...",
    "D='2010-02-04'",
    "D>'2010-02-03'",
    "D=['2010-02-03','2010-02-05']",
    'And(Y=2010,Y=2011)',
    'Or(Id=1,Id=2,Id=3)',
    'OR(Id=1,Id=2)',
    'AND(Y>2005,Or(Y=1,Y=2))',
    "Composite(AA.AuN=='mike smith')",
    "Composite(And(AA.AuN='mike smith',AA.AfN='harvard university'))",
    "And(Composite(AA.AuN=='jaime teevan'),Y>2012)",
    "And(Composite(C.CId=1),Composite(C.CN='sigir'))",
  ];
  for (const text of valid) {
    const parsed = parseExpression(text);
    assert.ok(parsed.ok, `${text} is valid: ${parsed.ok ? '' : parsed.error}`);
    assert.equal(renderExpression({ tree: parsed.tree }), text, `${text} renders back unchanged`);
  }
});

test('the parser rejects what facts.md rules out', () => {
  const invalid: { given: string; want: string }[] = [
    { given: "AA.AuN=='mike smith'", want: 'a composite part outside Composite' },
    { given: "Composite(And(AA.AuN='a',F.FN='b'))", want: 'two composite attributes in one Composite' },
    { given: 'Composite(Y=2010)', want: 'a plain attribute inside Composite' },
    { given: 'CC=5', want: 'an attribute that cannot be queried' },
    { given: 'ti=5', want: 'a wrong-case attribute' },
    { given: 'Title=5', want: 'an unknown attribute' },
    { given: "D='2010-02-30'", want: 'an impossible date' },
    { given: 'Y=2010.5', want: 'a decimal number' },
    { given: "Y='abc'", want: 'a string for a number' },
    { given: 'Ti=5', want: 'a number for a string' },
    { given: 'Id=[1,5]', want: 'a range on an Equals-only attribute' },
    { given: "Ti>'a'", want: 'a comparison on a string' },
    { given: 'And(Y=1,Y=2', want: 'an unbalanced parenthesis' },
    { given: 'And(Y=1,Y=2,)', want: 'a trailing comma' },
    { given: 'And()', want: 'no arguments' },
    { given: 'Y!=2', want: 'an unknown operator' },
    { given: 'Y=', want: 'a missing value' },
    { given: "Ti='abc", want: 'an unterminated string' },
    { given: 'Y=2000x', want: 'junk after the end' },
    { given: '', want: 'the empty expression' },
    { given: "Ti='Upper'", want: 'an upper-case string' },
    { given: 'And(Y=1, Y=2)', want: 'whitespace (facts.md shows none)' },
  ];
  for (const { given, want } of invalid) {
    assert.equal(parseExpression(given).ok, false, `${given}: ${want} is invalid`);
  }
});

/** Every node marked `focus` in a tree. */
function foci(node: ExprNode | undefined): string[] {
  if (!node) return [];
  const own = node.focus ? [node.focus] : [];
  if (node.kind === 'bool') return [...own, ...node.args.flatMap(foci)];
  if (node.kind === 'composite') return [...own, ...foci(node.inner)];
  return own;
}

const SEEDS = Array.from({ length: 40 }, (_, i) => i + 1);

test('every generated valid expression parses, and so does every simpler variant the shrinker tries', () => {
  for (const seed of SEEDS) {
    const generator = new ExpressionGenerator(new Random(seed), DEFAULT_POOLS);
    for (const feature of EXPRESSION_FEATURES) {
      const expression = generator.valid(feature);
      const text = renderExpression(expression);
      const parsed = parseExpression(text);
      assert.ok(parsed.ok, `seed ${seed} ${feature}: ${text.slice(0, 200)} is valid: ${parsed.ok ? '' : parsed.error}`);
      for (const smaller of shrinkExpression(expression).slice(0, 30)) {
        const shrunk = renderExpression(smaller);
        assert.ok(
          parseExpression(shrunk).ok,
          `seed ${seed} ${feature}: the shrunk ${shrunk.slice(0, 200)} stays valid`,
        );
        assert.ok(shrunk.length < text.length, `seed ${seed} ${feature}: shrinking makes it shorter`);
      }
    }
  }
});

test('every generated broken expression breaks the grammar, and its simpler variants keep the broken part', () => {
  for (const seed of SEEDS) {
    const generator = new ExpressionGenerator(new Random(seed), DEFAULT_POOLS);
    for (const mutation of EXPRESSION_MUTATIONS) {
      const expression = generator.broken(mutation);
      const text = renderExpression(expression);
      assert.equal(parseExpression(text).ok, false, `seed ${seed} ${mutation}: ${text} is invalid`);
      const marked = foci(expression.tree);
      for (const smaller of shrinkExpression(expression)) {
        const shrunk = renderExpression(smaller);
        assert.equal(parseExpression(shrunk).ok, false, `seed ${seed} ${mutation}: the shrunk ${shrunk} stays invalid`);
        assert.deepEqual(foci(smaller.tree), marked, `seed ${seed} ${mutation}: shrinking keeps the broken node`);
      }
    }
  }
});

test('the features, mutations and edges each show in what they generate', () => {
  const generator = new ExpressionGenerator(new Random(7), DEFAULT_POOLS);
  const text = (expression: Expression) => renderExpression(expression);
  const want: Record<string, RegExp> = {
    'wide-or': /Or\((?:[^,]+,){3,}/,
    'upper-case': /\b(AND|OR)\(/,
    'date-range': /D=[[(]'/,
    'number-prefix': /Y='\d+'\.\.\./,
    'composite-and': /Composite\(And\(/,
  };
  for (const [feature, pattern] of Object.entries(want)) {
    for (let i = 0; i < 10; i++) {
      const rendered = text(generator.valid(feature as (typeof EXPRESSION_FEATURES)[number]));
      assert.match(rendered, pattern, `${feature}: ${rendered}`);
    }
  }
  assert.equal(text(generator.broken('empty-expression')), '', 'the empty expression is empty');
  for (const form of EXPRESSION_EDGES) assert.ok(text(generator.edge(form)).length > 0, `${form} writes something`);
});

test('an id list stays within the length a GET request can carry', () => {
  for (const seed of SEEDS) {
    const generator = new ExpressionGenerator(new Random(seed), DEFAULT_POOLS, 10_000);
    const length = renderExpression(generator.valid('id-list')).length;
    assert.ok(length <= 16_000, `seed ${seed}: ${length} characters (real GET requests carried about 16,000)`);
  }
});

test('shrinking halves long argument lists before dropping single arguments', () => {
  const ids: ExprNode[] = Array.from({ length: 16 }, (_, n) => ({
    kind: 'pred',
    attr: 'Id',
    op: '=',
    value: { type: 'number', n },
  }));
  const [first] = shrinkExpression({ tree: { kind: 'bool', op: 'Or', args: ids } });
  assert.equal(first?.tree?.kind === 'bool' ? first.tree.args.length : 0, 8, 'the first candidate keeps half');
});
