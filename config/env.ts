/** The one place kgate reads its environment variables. */
export interface HarnessEnv {
  /** KGATE_BASE_URL: the target; unset means the embedded reference server. */
  baseUrl?: string;
  /** KGATE_KEY: a subscription key subscribed to every API. */
  key?: string;
  /** KGATE_KEY_UNSUBSCRIBED: a valid key without a subscription to some API. */
  keyUnsubscribed?: string;
  /** KGATE_KEY_EXHAUSTED: a key whose call volume quota is used up. */
  keyExhausted?: string;
  /** KGATE_KEY_UNSUBSCRIBED_COVERS: the APIs the unsubscribed key is subscribed to (comma-separated, or none). */
  keyUnsubscribedCovers?: string;
  /** GITHUB_STEP_SUMMARY: a file the conformance summary is appended to. */
  githubStepSummary?: string;
  /** CI: set by CI systems; progress lines are plainer there. */
  ci: boolean;
  /** KGATE_CONFORM_OPTIONS: non-secret conformance run settings (JSON) that `kgate conform` hands to Playwright. */
  conformOptions?: string;
}

/** Reads the harness settings from the given environment (process.env by default). */
export function readEnv(env: NodeJS.ProcessEnv = process.env): HarnessEnv {
  const nonEmpty = (value: string | undefined) => (value && value.trim() !== '' ? value : undefined);
  return {
    baseUrl: nonEmpty(env.KGATE_BASE_URL),
    key: nonEmpty(env.KGATE_KEY),
    keyUnsubscribed: nonEmpty(env.KGATE_KEY_UNSUBSCRIBED),
    keyExhausted: nonEmpty(env.KGATE_KEY_EXHAUSTED),
    keyUnsubscribedCovers: nonEmpty(env.KGATE_KEY_UNSUBSCRIBED_COVERS),
    githubStepSummary: nonEmpty(env.GITHUB_STEP_SUMMARY),
    ci: Boolean(nonEmpty(env.CI)),
    conformOptions: nonEmpty(env.KGATE_CONFORM_OPTIONS),
  };
}
