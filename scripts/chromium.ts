// Debian's Chromium for the tests that render kgate's HTML reports (no browser download here).
import { type Browser, chromium } from '@playwright/test';

/** Where Debian's chromium package puts the browser (`.ci/run` installs it). */
export const CHROMIUM = '/usr/bin/chromium';

/** Launches headless Chromium with no background networking (this machine's network is closed). */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}
