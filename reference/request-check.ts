import { getOperation } from '../openapi/spec.ts';
import { validateRequest } from '../openapi/validator.ts';
import { type ApiGroup, errorResult } from './errors.ts';
import type { HandlerResult } from './faults/types.ts';

/**
 * Checks a decoded request against the spec (types, required parameters, formats) before any
 * handler runs, and answers the documented 400 of the group naming the first parameter at fault.
 * An optional parameter sent empty counts as absent, as the handlers treat it. Handlers keep
 * their own checks for what the spec cannot say (the expression grammar, supported markets,
 * maxima), so this gate only ever refuses what the spec already calls invalid.
 */
export function checkRequest(
  operationId: string,
  group: ApiGroup,
  method: 'GET' | 'POST',
  params: Record<string, string>,
  pathParams: Record<string, string>,
): HandlerResult | undefined {
  const op = getOperation(operationId);
  if (!op) return undefined;
  const present: Record<string, string> = {};
  for (const [name, value] of Object.entries(params)) {
    if (value !== '' || op.requiredInputs.includes(name)) present[name] = value;
  }
  const result = validateRequest(
    operationId,
    method === 'POST' ? { form: present, pathParams } : { query: present, pathParams },
  );
  if (result.valid) return undefined;
  const first = result.errors[0];
  const parameter = first?.parameter ?? '';
  const reason = first?.message.replace(`parameter '${parameter}' `, '') ?? 'is invalid';
  return errorResult(group, 400, `Missing or invalid parameter: ${parameter} (${reason})`, parameter);
}
