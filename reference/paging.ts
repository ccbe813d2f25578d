import { type ApiGroup, badParameter } from './errors.ts';
import type { HandlerResult } from './faults/types.ts';

/** A parameter value that failed validation, carrying the group-shaped 400 to send. */
export class ParameterError extends Error {
  constructor(readonly result: HandlerResult) {
    super('invalid parameter');
  }
}

/** Reads a non-negative integer parameter (digits only) with a default and an inclusive maximum. */
export function intParam(
  group: ApiGroup,
  params: Record<string, string>,
  name: string,
  fallback: number,
  max: number = Number.MAX_SAFE_INTEGER,
): number {
  const raw = params[name];
  if (raw === undefined) return fallback;
  const text = raw.trim();
  if (!/^\d{1,16}$/.test(text)) throw new ParameterError(badParameter(group, name, 'must be a non-negative integer'));
  const value = Number(text);
  if (value > max) throw new ParameterError(badParameter(group, name, `must be at most ${max}`));
  return value;
}

/** Reads a required, non-blank string parameter. */
export function requiredParam(group: ApiGroup, params: Record<string, string>, name: string): string {
  const value = params[name];
  if (value === undefined || value.trim() === '') {
    throw new ParameterError(badParameter(group, name, 'is required'));
  }
  return value;
}

/** The slice [offset, offset + count) of a list; empty when offset is past the end. */
export function page<T>(items: readonly T[], offset: number, count: number): T[] {
  return items.slice(offset, offset + count);
}
