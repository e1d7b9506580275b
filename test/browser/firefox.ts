import puppeteer, { type Browser, type Page } from 'puppeteer-core';

/** Debian's Firefox ESR (`apt-get install firefox-esr`; .ci/run installs it when missing). */
export const FIREFOX = process.env.FIREFOX_PATH ?? '/usr/bin/firefox-esr';

/** Firefox driven over WebDriver BiDi (puppeteer-core; Playwright drives only its own builds). */
export function launchFirefox(): Promise<Browser> {
  return puppeteer.launch({
    browser: 'firefox',
    protocol: 'webDriverBiDi',
    executablePath: FIREFOX,
    headless: true,
    // No update checks, telemetry or remote settings: nothing leaves the machine.
    extraPrefsFirefox: {
      'app.update.enabled': false,
      'datareporting.policy.dataSubmissionEnabled': false,
      'toolkit.telemetry.enabled': false,
      'browser.shell.checkDefaultBrowser': false,
    },
  });
}

/** The CSS selector of a `data-testid`. */
export const byTestId = (id: string): string => `[data-testid="${id}"]`;

/** The text of the first element with that test id. */
export function textOf(page: Page, id: string): Promise<string> {
  return page.$eval(byTestId(id), (element) => element.textContent ?? '');
}
