// node bench/lib/render-terminal.mjs <transcript> [runs]
// The terminal view's own cost, without reading the session: loads it once
// (through dist/, as `show` does), then times buildView + renderTerminalWaterfall
// `runs` times in this process and prints {"buildMs", "renderMs", "renderCpuMs"}
// (CPU time too: on a shared machine wall time mostly measures the neighbours).
const dist = (p) => import(new URL(`../../dist/${p}`, import.meta.url).href);
const [
  { resolveSession },
  { loadSession },
  { finish },
  { loadPriceTable },
  { windowsOf },
  { assembleView, viewPart },
  { sessionHeaderOf },
  r,
] = await Promise.all([
  dist('app/show/resolve-target.js'),
  import('./whole-session.mjs'),
  dist('core/model/assemble/finish.js'),
  dist('adapters/config/price-file.js'),
  dist('core/cost/pricing.js'),
  dist('app/show/build-view.js'),
  dist('core/view/session-header.js'),
  dist('app/show/render/terminal-waterfall.js'),
]);
const [file, runsText = '5'] = process.argv.slice(2);
const prices = await loadPriceTable(undefined);
const model = finish((await loadSession(await resolveSession(file, []))).state, windowsOf(prices));
const buildMs = [];
const renderMs = [];
const renderCpuMs = [];
let lines = 0;
for (let i = 0; i < Number(runsText); i++) {
  const t0 = performance.now();
  const part = viewPart(model, prices, 0);
  const view = assembleView(
    model.sessionId,
    sessionHeaderOf(model),
    part.rows,
    part.turns,
    model.warnings,
  );
  const t1 = performance.now();
  const cpu = process.cpuUsage();
  lines = r.renderTerminalWaterfall(view, { color: false, width: 100 }).split('\n').length;
  const used = process.cpuUsage(cpu);
  renderMs.push(performance.now() - t1);
  renderCpuMs.push((used.user + used.system) / 1000);
  buildMs.push(t1 - t0);
}
process.stdout.write(`${JSON.stringify({ buildMs, renderMs, renderCpuMs, lines })}\n`);
