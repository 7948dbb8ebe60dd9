// A real browser for the dashboard's test: Chromium driven by playwright-core. Playwright's own browser
// download is not used (CI machines may not reach it): Debian's `chromium` package is, at /usr/bin/chromium,
// or any Chromium-based browser named by FUSEBENCH_CHROMIUM (ci.yml points it at the hosted runner's Chrome).
// A machine without one fails the test with the fix, never skips it.
import { existsSync } from 'node:fs';
import { type Browser, chromium } from 'playwright-core';

/** Where Debian's `chromium` package puts the browser. */
const DEBIAN_CHROMIUM = '/usr/bin/chromium';

/** The browser binary to drive: FUSEBENCH_CHROMIUM, else Debian's; throws with the fix when there is none. */
function chromiumPath(): string {
  const named = process.env.FUSEBENCH_CHROMIUM;
  const path = named || DEBIAN_CHROMIUM;
  if (existsSync(path)) return path;
  throw new Error(
    named
      ? `FUSEBENCH_CHROMIUM=${named}: no such file. Point it at a Chromium or Chrome binary, or unset it to use Debian's chromium package (${DEBIAN_CHROMIUM}).`
      : `The dashboard's browser test needs Chromium at ${DEBIAN_CHROMIUM}: install Debian's chromium package (apt-get install chromium), or set FUSEBENCH_CHROMIUM to a Chromium or Chrome binary.`,
  );
}

/** Starts headless Chromium. */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: chromiumPath(), headless: true });
}
