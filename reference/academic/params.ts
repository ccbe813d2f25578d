// Parameter reading shared by the academic operations: every problem becomes a 400 'Bad Argument' naming the parameter.

/** What an engine operation answers: an HTTP status and a JSON body. */
export interface EngineResult {
  status: number;
  body: unknown;
}

/** Largest `count` accepted by interpret, evaluate and calchistogram (real clients sent evaluate count=10000). */
export const MAX_COUNT = 10_000;

/** Thrown while reading parameters; the engine turns it into a 400 answer. */
export class BadArgument extends Error {}

/** The 400 answer of the academic group. */
export function badArgument(message: string): EngineResult {
  return { status: 400, body: { error: { code: 'Bad Argument', message } } };
}

/** A parameter given with an empty value counts as absent (form bodies often carry `name=`). */
function present(params: Record<string, string>, name: string): string | undefined {
  const value = Object.hasOwn(params, name) ? params[name] : undefined;
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/** A required, non-empty string parameter. */
export function requiredString(params: Record<string, string>, name: string): string {
  const value = present(params, name);
  if (value === undefined) throw new BadArgument(`Missing or invalid parameter: ${name} is required`);
  return value;
}

/** An optional string parameter. */
export function optionalString(params: Record<string, string>, name: string): string | undefined {
  return present(params, name);
}

/** An optional non-negative integer parameter (decimal digits only), at most `max`. */
export function optionalInteger(
  params: Record<string, string>,
  name: string,
  fallback: number,
  max = Number.MAX_SAFE_INTEGER,
): number {
  const value = present(params, name);
  if (value === undefined) return fallback;
  if (!/^\d{1,16}$/.test(value) || Number(value) > max) {
    throw new BadArgument(
      `Missing or invalid parameter: ${name} must be an integer between 0 and ${max}, got '${clip(value)}'`,
    );
  }
  return Number(value);
}

/** The `model` parameter: only 'latest' exists. */
export function checkModel(params: Record<string, string>): void {
  const model = present(params, 'model');
  // Model names read in any case: LATEST is latest.
  if (model !== undefined && model.toLowerCase() !== 'latest') {
    throw new BadArgument(`Missing or invalid parameter: model must be 'latest', got '${clip(model)}'`);
  }
}

/** Shortens user input quoted in error messages. */
export function clip(value: string, max = 60): string {
  return value.length > max ? `${value.slice(0, max)}...` : value;
}
