// Reading JSON answers that may have any shape: the suite takes what it needs and never trusts a
// body to match the spec (the request fixture judges that, once, on the operation that answered).

/** The value at `key` of a JSON value, if it is an object. */
export function field(json: unknown, key: string): unknown {
  return json !== null && typeof json === 'object' && !Array.isArray(json)
    ? (json as Record<string, unknown>)[key]
    : undefined;
}

/** Whether a JSON value is an object or an array (what `objects` keeps). */
export function isObject(item: unknown): item is Record<string, unknown> {
  return item !== null && typeof item === 'object';
}

/** The elements of a JSON value that are objects, if it is an array (none otherwise). */
export function objects(value: unknown): Record<string, unknown>[] {
  return Array.isArray(value) ? value.filter(isObject) : [];
}
