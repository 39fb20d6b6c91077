// Where Debian's Chromium lives and the flags every page here is opened with
// (the tests, bench/show-views.mjs, scripts/screenshots.mjs): one list, so a
// flag added for the tests is the flag the benchmark and the screenshots get.
// Never a downloaded browser; CI installs the `chromium` package.

// CCOTEL_CHROMIUM names another installed Chromium or Chrome: the GitHub
// runners (.github/workflows/ci.yml) have Google Chrome, not Debian's package.
export const CHROMIUM = process.env.CCOTEL_CHROMIUM || '/usr/bin/chromium';

// Without the background-networking flags Chromium keeps dialling out,
// which this machine's closed network refuses.
export const CHROMIUM_ARGS = Object.freeze([
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
]);
