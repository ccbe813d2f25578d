// Light response checks for k6, where the spec's JSON Schema validator cannot run: status 200,
// a JSON content type, and the top-level shape the spec requires of each operation's 200 body.

const OBJECT_FIELDS: Record<string, string[]> = {
  interpretGet: ['query', 'interpretations'],
  interpretPost: ['query', 'interpretations'],
  evaluateGet: ['expr', 'entities'],
  evaluatePost: ['expr', 'entities'],
  calchistogramGet: ['expr', 'num_entities', 'histograms'],
  calchistogramPost: ['expr', 'num_entities', 'histograms'],
  answerSearch: ['_type', 'queryContext'],
  urlPreview: ['_type', 'name', 'url', 'description', 'primaryImageOfPage'],
  hotEvents: ['value'],
  relatedEvents: ['value'],
  eventDocuments: ['value'],
};

/** Why a 200 body does not have the shape the spec requires, or undefined when it does. */
export function shapeProblem(operationId: string, body: unknown): string | undefined {
  if (operationId === 'similarityGet' || operationId === 'similarityPost') {
    return typeof body === 'number' ? undefined : 'similarity body is not a bare number';
  }
  const fields = OBJECT_FIELDS[operationId];
  if (!fields) return `unknown operation ${operationId}`;
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return 'body is not a JSON object';
  const missing = fields.filter((field) => !(field in (body as Record<string, unknown>)));
  return missing.length === 0 ? undefined : `missing ${missing.join(', ')}`;
}
