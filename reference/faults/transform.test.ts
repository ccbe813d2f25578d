import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { editNumber, editOk, editStatus, jsonOf, shiftIntParam, withBody } from './transform.ts';
import type { HandlerResult, RequestContext } from './types.ts';

const ctx = { params: {} } as RequestContext;

describe('shiftIntParam', () => {
  const cases: { given: { value: string | undefined; delta: number }; want: string | undefined }[] = [
    { given: { value: '3', delta: -1 }, want: '2' },
    { given: { value: '0', delta: -1 }, want: '0' },
    { given: { value: ' 7 ', delta: 1 }, want: '8' },
    { given: { value: undefined, delta: -1 }, want: undefined },
    { given: { value: '-2', delta: -1 }, want: '-2' },
    { given: { value: 'abc', delta: 1 }, want: 'abc' },
  ];
  for (const { given, want } of cases) {
    test(`${JSON.stringify(given.value)} ${given.delta > 0 ? '+' : ''}${given.delta} -> ${JSON.stringify(want)}`, () => {
      const params: Record<string, string> = given.value === undefined ? {} : { offset: given.value };
      shiftIntParam(params, 'offset', given.delta);
      assert.equal(params.offset, want);
    });
  }
});

describe('jsonOf and withBody', () => {
  test('a rawBody is parsed and dropped once a body replaces it', () => {
    const result: HandlerResult = { status: 200, rawBody: '{"a":1}', headers: { 'retry-after': '1' } };
    assert.deepEqual(jsonOf(result), { a: 1 });
    assert.deepEqual(withBody(result, { b: 2 }), { status: 200, body: { b: 2 }, headers: { 'retry-after': '1' } });
  });

  test('an unparseable rawBody has no JSON', () => {
    assert.equal(jsonOf({ status: 200, rawBody: '{"a":' }), undefined);
  });
});

describe('edit hooks', () => {
  test('editOk changes a copy: the clean body is never touched', async () => {
    const clean = { items: [{ prob: 0.5 }] };
    const result: HandlerResult = { status: 200, body: clean };
    const edited = await editOk((body) => {
      (body.items as { prob?: number }[])[0]!.prob = undefined;
    })(ctx, result);
    assert.deepEqual(clean, { items: [{ prob: 0.5 }] });
    assert.deepEqual(edited.body, { items: [{ prob: undefined }] });
  });

  const cases: { given: HandlerResult; want: HandlerResult }[] = [
    { given: { status: 200, body: { x: 1 } }, want: { status: 200, body: { x: 1, edited: true } } },
    { given: { status: 200, rawBody: '{"x":1}' }, want: { status: 200, body: { x: 1, edited: true } } },
    { given: { status: 400, body: { x: 1 } }, want: { status: 400, body: { x: 1 } } },
    { given: { status: 200, body: [1, 2] }, want: { status: 200, body: [1, 2] } },
  ];
  for (const { given, want } of cases) {
    test(`editOk on ${JSON.stringify(given)}`, async () => {
      const hook = editOk((body) => {
        body.edited = true;
      });
      assert.deepEqual(await hook(ctx, given), want);
    });
  }

  test('editStatus replaces the body with what the edit returns', async () => {
    const hook = editStatus(404, () => ({ gone: true }));
    assert.deepEqual(await hook(ctx, { status: 404, body: { statusCode: 404 } }), {
      status: 404,
      body: { gone: true },
    });
  });

  test('editNumber maps a bare-number body, including a serialized one', async () => {
    const hook = editNumber((value) => value * 2);
    assert.deepEqual(await hook(ctx, { status: 200, rawBody: '0.25' }), { status: 200, body: 0.5 });
    assert.deepEqual(await hook(ctx, { status: 400, body: { error: {} } }), { status: 400, body: { error: {} } });
  });
});
