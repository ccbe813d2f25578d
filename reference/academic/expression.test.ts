import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { type Expr, ExpressionError, MAX_DEPTH, parseExpression } from './expression.ts';

// A compact rendering of the parse tree, so the tables below read like the grammar.
function show(e: Expr): string {
  switch (e.kind) {
    case 'and':
    case 'or':
      return `${e.kind}(${e.args.map(show).join(',')})`;
    case 'composite':
      return `composite[${e.group}](${show(e.inner)})`;
    case 'eq':
      return `${e.attr.name}${e.canonicalOnly ? '==' : '='}${JSON.stringify(e.value)}`;
    case 'prefix':
      return `${e.attr.name}${e.canonicalOnly ? '==' : '='}${JSON.stringify(e.value)}...`;
    case 'range':
      return `${e.attr.name}${e.loInclusive ? '[' : '('}${e.lo},${e.hi}${e.hiInclusive ? ']' : ')'}`;
  }
}

describe('parseExpression accepts every form of the grammar', () => {
  const cases: { given: string; want: string }[] = [
    { given: "Ti='indexing by latent semantic analysis'", want: 'Ti="indexing by latent semantic analysis"' },
    { given: "Ti=='indexing by latent semantic analysis'", want: 'Ti=="indexing by latent semantic analysis"' },
    { given: "Ti='indexing by latent seman'...", want: 'Ti="indexing by latent seman"...' },
    { given: 'Y=2010', want: 'Y=2010' },
    { given: 'Y==2010', want: 'Y==2010' },
    { given: 'Y>2005', want: 'Y(2005,Infinity)' },
    { given: 'Y>=2005', want: 'Y[2005,Infinity)' },
    { given: 'Y<2010', want: 'Y(-Infinity,2010)' },
    { given: 'Y<=2010', want: 'Y(-Infinity,2010]' },
    { given: 'Y=[2010,2012)', want: 'Y[2010,2012)' },
    { given: 'Y=[2010,2012]', want: 'Y[2010,2012]' },
    { given: 'Y=(2010,2012]', want: 'Y(2010,2012]' },
    { given: 'Y=(2010,2012)', want: 'Y(2010,2012)' },
    { given: "Y='19'...", want: 'Y="19"...' },
    { given: "D='2010-02-04'", want: 'D=20100204' },
    { given: "D>'2010-02-03'", want: 'D(20100203,Infinity)' },
    { given: "D=['2010-02-03','2010-02-05']", want: 'D[20100203,20100205]' },
    { given: 'Id=2140251883', want: 'Id=2140251883' },
    { given: "W='retrieval'", want: 'W="retrieval"' },
    { given: 'RId=1000000007', want: 'RId=1000000007' },
    { given: "DOI='10.1145/sigir.2012.1'", want: 'DOI="10.1145/sigir.2012.1"' },
    { given: "DOI='10.1145/'...", want: 'DOI="10.1145/"...' },
    { given: 'And(Y=2010,Y=2011)', want: 'and(Y=2010,Y=2011)' },
    { given: 'Or(Id=1,Id=2,Id=3)', want: 'or(Id=1,Id=2,Id=3)' },
    { given: 'OR(Id=1,AND(Y=1,Y=2))', want: 'or(Id=1,and(Y=1,Y=2))' },
    { given: 'and(Y=1)', want: 'and(Y=1)' },
    { given: " And ( Y = 2010 , Ti = 'x' ) ", want: 'and(Y=2010,Ti="x")' },
    { given: "Composite(AA.AuN=='mike smith')", want: 'composite[AA](AA.AuN=="mike smith")' },
    {
      given: "Composite(And(AA.AuN='mike smith',AA.AfN='harvard university'))",
      want: 'composite[AA](and(AA.AuN="mike smith",AA.AfN="harvard university"))',
    },
    {
      given: "And(Composite(AA.AuN='a'),Composite(F.FN='b'))",
      want: 'and(composite[AA](AA.AuN="a"),composite[F](F.FN="b"))',
    },
    { given: "Composite(Or(J.JN='nature',J.JId=5))", want: 'composite[J](or(J.JN="nature",J.JId=5))' },
    { given: "Composite(C.CN='sigir'...)", want: 'composite[C](C.CN="sigir"...)' },
    { given: 'composite(AA.S=1)', want: 'composite[AA](AA.S=1)' },
    { given: "Ti='o\\'brien'", want: 'Ti="o\'brien"' },
    { given: 'Y=-5', want: 'Y=-5' },
  ];
  for (const { given, want } of cases) {
    it(given, () => assert.equal(show(parseExpression(given)), want));
  }
});

describe('parseExpression rejects bad input with the position and what was expected', () => {
  const cases: { given: string; want: { position: number; detail: RegExp } }[] = [
    { given: '', want: { position: 0, detail: /expected And\(\.\.\.\).*found end of expression/ } },
    { given: 'Y', want: { position: 1, detail: /expected an operator/ } },
    { given: 'Y=', want: { position: 2, detail: /expected a value/ } },
    { given: 'And(Y=1', want: { position: 7, detail: /expected ',' or '\)'/ } },
    { given: 'And(Y=1;Y=2)', want: { position: 7, detail: /found ';'/ } },
    { given: 'Y=1 Y=2', want: { position: 4, detail: /expected end of expression/ } },
    { given: 'Foo=1', want: { position: 0, detail: /unknown attribute 'Foo'/ } },
    { given: 'ti=1', want: { position: 0, detail: /unknown attribute 'ti'.*case-sensitive/ } },
    { given: "AA.AuN='x'", want: { position: 0, detail: /only appear inside Composite/ } },
    { given: "And(Y=1,F.FN='x')", want: { position: 8, detail: /only appear inside Composite/ } },
    { given: 'Composite(Y=1)', want: { position: 10, detail: /not a composite attribute/ } },
    { given: "Composite(And(AA.AuN='a',F.FN='b'))", want: { position: 25, detail: /cannot mix parts of AA and F/ } },
    { given: "Composite(Composite(AA.AuN='a'))", want: { position: 10, detail: /cannot be nested/ } },
    { given: 'CC>5', want: { position: 0, detail: /CC cannot be queried/ } },
    { given: 'ECC=5', want: { position: 0, detail: /ECC cannot be queried/ } },
    { given: 'Id>5', want: { position: 2, detail: /does not support comparisons/ } },
    { given: 'Id=[1,5]', want: { position: 0, detail: /does not support ranges/ } },
    { given: "Ti>'a'", want: { position: 2, detail: /does not support comparisons/ } },
    { given: "W='lea'...", want: { position: 2, detail: /does not support prefix/ } },
    { given: "D='2010'...", want: { position: 2, detail: /does not support prefix/ } },
    { given: "Y='2010'", want: { position: 2, detail: /expected a number/ } },
    { given: "Y='x'...", want: { position: 2, detail: /expected digits/ } },
    { given: 'Ti=5', want: { position: 3, detail: /expected a quoted string/ } },
    { given: 'D=20100101', want: { position: 2, detail: /expected a quoted date/ } },
    { given: "D='2010-02-30'", want: { position: 2, detail: /expected a date/ } },
    { given: "D>'2010-13-01'", want: { position: 2, detail: /expected a date/ } },
    { given: "Ti='abc", want: { position: 3, detail: /unterminated string/ } },
    { given: 'Y=1.5', want: { position: 3, detail: /expected an integer/ } },
    { given: 'Y=1234567890123456', want: { position: 2, detail: /more than 15 digits/ } },
    { given: 'Y=[2010,2012', want: { position: 12, detail: /expected '\]' or '\)'/ } },
    { given: 'Y=[2010;2012]', want: { position: 7, detail: /expected ',' between the range bounds/ } },
    { given: 'Y==[2010,2012]', want: { position: 3, detail: /a range needs '='/ } },
    {
      given: 'Composite()',
      want: { position: 10, detail: /expected And\(\.\.\.\), Or\(\.\.\.\) or a composite attribute/ },
    },
    { given: 'And()', want: { position: 4, detail: /expected And/ } },
    { given: 'AA.=1', want: { position: 3, detail: /expected an attribute part/ } },
    { given: 'And Y=1', want: { position: 4, detail: /expected '\(' after And but found 'Y'/ } },
    { given: 'Composite(or)', want: { position: 12, detail: /expected '\(' after or but found '\)'/ } },
    {
      given: `${'And('.repeat(MAX_DEPTH + 1)}Y=1${')'.repeat(MAX_DEPTH + 1)}`,
      want: { position: 260, detail: /nest deeper/ },
    },
  ];
  for (const { given, want } of cases) {
    it(given.length > 40 ? `${given.slice(0, 40)}...` : given || '(empty)', () => {
      assert.throws(
        () => parseExpression(given),
        (error: unknown) => {
          assert.ok(error instanceof ExpressionError);
          assert.equal(error.position, want.position, error.message);
          assert.match(error.detail, want.detail);
          assert.match(error.message, new RegExp(`^at position ${want.position}: `));
          return true;
        },
      );
    });
  }
});
