import { defineCheck } from './registry.ts';

/** Applied by the request fixture: an answer ends where its framing says, and nothing follows it unasked. */
export const check = defineCheck({
  id: 'response-is-framed',
  severity: 'fail',
  verifies:
    'every answer ends where its Content-Length or chunked framing says, with no bytes after it or between exchanges on a kept-alive connection (such bytes close the connection: no other request is ever judged by them)',
  kind: 'fixture',
  appliesTo: () => true,
});
