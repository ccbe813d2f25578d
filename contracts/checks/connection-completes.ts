import { defineCheck } from './registry.ts';

/** Applied by the request fixture: no reset or refused connection. */
export const check = defineCheck({
  id: 'connection-completes',
  severity: 'fail',
  verifies: 'every request gets a complete HTTP response: no refused, reset or prematurely closed connection',
  kind: 'fixture',
  appliesTo: () => true,
});
