// Debian's chromium for the browser tests (playwright-core drives it): launched headless, or the
// suite skipped, saying so, where it is not installed.
import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';

const CHROMIUM = '/usr/bin/chromium';
const ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];

/** The browser, or the suite skipped (call in its first `before`). */
export async function launchChromium(context: Mocha.Context): Promise<Browser> {
  if (!existsSync(CHROMIUM)) {
    console.log(`    browser tests skipped: no chromium at ${CHROMIUM} (apt-get install chromium)`);
    context.skip();
  }
  return chromium.launch({ executablePath: CHROMIUM, args: ARGS });
}
