// The inline stylesheet and script of the HTML waterfall, kept apart from the
// page assembly so each is readable on its own. The script is plain ES2017
// (it runs as-is in the browser, never through tsc) and is written inside
// String.raw so its backslashes reach the browser untouched; it must contain
// no backtick, no `${`, and no `</script` (checked by the tests).

export const HTML_WATERFALL_STYLE = `
:root {
  --fg: #1f2328; --muted: #59636e; --line: #d1d9e0; --soft: #f6f8fa; --grid: #e6eaef;
  --tool: #3d7cc9; --agent: #8250df; --ok: #1a7f37; --err: #cf222e; --err-soft: #fff0ee;
  --run: #7d5300; --run-bar: #d4a72c; --run-soft: #fff8c5; --focus: #0969da; --sel: #ddf4ff;
  --mono: ui-monospace, SFMono-Regular, "SF Mono", Menlo, Consolas, "DejaVu Sans Mono", "Liberation Mono", monospace;
  --sans: system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", "DejaVu Sans", Arial, sans-serif;
}
* { box-sizing: border-box; }
[hidden] { display: none !important; }
html { scroll-padding-top: 40px; }
html.details-open { scroll-padding-bottom: 44vh; }
html.details-open body { padding-bottom: 44vh; }
body { margin: 0; color: var(--fg); background: #fff; font: 13px/1.45 var(--sans); }
.page-head { padding: 14px 20px 10px; border-bottom: 1px solid var(--line); }
h1 { margin: 0 0 6px; font-size: 18px; font-weight: 600; }
.meta { display: flex; flex-wrap: wrap; gap: 4px 18px; align-items: center; color: var(--muted); }
.meta b { color: var(--fg); font-weight: 600; }
.meta .mono { font-family: var(--mono); font-size: 12px; }
.toolbar { display: flex; flex-wrap: wrap; gap: 8px 16px; align-items: center; padding: 8px 20px; border-bottom: 1px solid var(--line); color: var(--muted); font-size: 12px; }
.toolbar button { font: inherit; color: var(--fg); background: var(--soft); border: 1px solid var(--line); border-radius: 6px; padding: 3px 10px; cursor: pointer; }
.toolbar button:hover { background: #eef1f4; }
.legend { display: flex; gap: 14px; align-items: center; margin-left: auto; }
.legend span { display: inline-flex; align-items: center; gap: 5px; }
.swatch { display: inline-block; width: 18px; height: 8px; border-radius: 2px; background: var(--tool); }
.swatch.agent { background: var(--agent); }
.swatch.error { background: var(--err); }
.swatch.running { background: repeating-linear-gradient(135deg, var(--run-bar) 0 4px, #f3df9c 4px 8px); }
.warnings { margin: 0; }
.warnings summary { cursor: pointer; color: var(--run); font-weight: 600; }
.warnings ul { margin: 4px 0 0; padding-left: 18px; max-height: 120px; overflow: auto; }
.warnings code { font-family: var(--mono); font-size: 12px; }
.grid { margin: 0 0 24px; }
.row { display: grid; grid-template-columns: minmax(300px, 32%) minmax(200px, 1fr) 64px 112px 150px 110px; align-items: center; min-height: 29px; border-bottom: 1px solid #eef1f4; }
.row > div { padding: 0 8px; min-width: 0; }
.row.head { position: sticky; top: 0; z-index: 3; background: #fff; border-bottom: 1px solid var(--line); min-height: 30px; font-size: 11px; color: var(--muted); text-transform: uppercase; letter-spacing: .04em; }
.row.head > div { overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
.row.turn { background: var(--soft); border-top: 1px solid var(--line); min-height: 32px; cursor: pointer; }
.row.call { cursor: default; }
.row.call:hover { background: #f3f7fc; }
.row.status-error { background: var(--err-soft); box-shadow: inset 3px 0 0 var(--err); }
.row.status-error:hover { background: #ffe4e0; }
.row.status-running { box-shadow: inset 3px 0 0 var(--run-bar); }
.row[aria-selected="true"], .row[aria-selected="true"]:hover { background: var(--sel); }
.row:focus { outline: none; }
.row:focus-visible { outline: 2px solid var(--focus); outline-offset: -2px; }
.num { text-align: right; font-family: var(--mono); font-size: 12px; font-variant-numeric: tabular-nums; white-space: nowrap; }
.c-name { display: flex; align-items: center; gap: 6px; white-space: nowrap; overflow: hidden; }
.label { font-family: var(--mono); font-size: 12.5px; overflow: hidden; text-overflow: ellipsis; }
.turn .label { font-family: var(--sans); font-size: 13px; font-weight: 600; }
.turn-no { font-weight: 600; color: var(--muted); flex: none; }
.twisty { flex: none; display: inline-flex; width: 16px; height: 16px; align-items: center; justify-content: center; border-radius: 3px; color: var(--muted); cursor: pointer; font-size: 11px; transition: transform .12s; }
.twisty::before { content: "▶"; }
.twisty:hover { background: #e1e6eb; color: var(--fg); }
[aria-expanded="true"] > .c-name > .twisty { transform: rotate(90deg); }
.twisty-space { flex: none; width: 16px; }
.kind { flex: none; font: 600 9.5px/1 var(--sans); letter-spacing: .05em; text-transform: uppercase; color: var(--agent); border: 1px solid #c9b5f2; background: #f6f1ff; border-radius: 3px; padding: 2px 4px; }
.pill { flex: none; font-size: 11px; font-weight: 600; border-radius: 8px; padding: 0 6px; }
.pill.error { color: var(--err); background: #ffebe9; border: 1px solid #ffcecb; }
.pill.running { color: var(--run); background: var(--run-soft); border: 1px solid #f0d98a; }
.axis { position: relative; height: 16px; }
.tick { position: absolute; top: 0; transform: translateX(-50%); font-family: var(--mono); font-size: 10.5px; text-transform: none; letter-spacing: 0; white-space: nowrap; }
.tick.first { transform: none; }
.tick.last { transform: translateX(-100%); }
.track { position: relative; height: 18px; background: repeating-linear-gradient(to right, var(--grid) 0 1px, transparent 1px var(--tick)); }
.bar { position: absolute; top: 4px; height: 10px; min-width: 2px; border-radius: 2px; background: var(--tool); }
.agent > .c-time .bar { background: var(--agent); }
.status-error > .c-time .bar { background: var(--err); }
.status-running > .c-time .bar { background: repeating-linear-gradient(135deg, var(--run-bar) 0 4px, #f3df9c 4px 8px); border-right: 2px solid var(--run); border-radius: 2px 0 0 2px; }
.band { position: absolute; top: 3px; bottom: 3px; min-width: 2px; background: #e3e8ee; border: 1px solid #ccd4dc; border-radius: 3px; }
.badge { display: inline-flex; gap: 4px; align-items: center; font-size: 12px; font-weight: 600; padding: 0 7px; border-radius: 9px; white-space: nowrap; line-height: 18px; }
.badge.success { color: var(--ok); }
.badge.error { color: #fff; background: var(--err); }
.badge.running { color: #3b2300; background: #fae17d; }
.badge.interrupted { color: var(--fg); background: #e6eaef; }
.tok { display: grid; grid-template-columns: 34px 1fr; align-items: center; gap: 6px; }
.tokbars { flex: none; display: flex; flex-direction: column; gap: 2px; width: 34px; }
.tokbars b { display: block; height: 3px; background: #e6eaef; border-radius: 2px; overflow: hidden; }
.tokbars i { display: block; height: 100%; min-width: 1px; background: #6f95c6; }
.tokbars b.out i { background: #4ca864; }
.ctx { display: flex; align-items: center; justify-content: flex-end; gap: 6px; }
.meter { flex: none; width: 40px; height: 6px; background: #e6eaef; border-radius: 3px; overflow: hidden; }
.meter > i { display: block; height: 100%; background: #4ca864; }
.meter.warn > i { background: var(--run-bar); }
.meter.full > i { background: var(--err); }
.cost { font-weight: 600; }
.details { position: fixed; left: 0; right: 0; bottom: 0; height: 42vh; z-index: 5; display: flex; flex-direction: column; background: #fff; border-top: 1px solid var(--line); box-shadow: 0 -6px 18px rgba(31, 35, 40, .10); }
.d-head { display: flex; gap: 10px; align-items: center; padding: 8px 20px; border-bottom: 1px solid var(--line); }
.d-head h2 { flex: 1; margin: 0; font: 600 13.5px/1.4 var(--mono); overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
.d-head button { font: 18px/1 var(--sans); color: var(--muted); background: none; border: 1px solid transparent; border-radius: 6px; width: 28px; height: 28px; cursor: pointer; }
.d-head button:hover { background: var(--soft); border-color: var(--line); }
.d-body { flex: 1; min-height: 0; overflow: auto; padding: 10px 20px 14px; display: grid; grid-template-columns: minmax(280px, 380px) minmax(0, 1fr) minmax(0, 1fr); gap: 18px; }
.d-body h3 { margin: 0 0 4px; font-size: 11px; color: var(--muted); text-transform: uppercase; letter-spacing: .04em; }
.d-body dl { display: grid; grid-template-columns: auto 1fr; gap: 2px 12px; margin: 0; align-content: start; }
.d-body dt { color: var(--muted); }
.d-body dd { margin: 0; font-family: var(--mono); font-size: 12px; overflow-wrap: anywhere; }
.d-body pre { margin: 0; padding: 8px 10px; background: var(--soft); border: 1px solid var(--line); border-radius: 6px; font: 12px/1.45 var(--mono); white-space: pre-wrap; overflow-wrap: anywhere; max-height: calc(42vh - 84px); overflow: auto; }
.d-body .none { color: var(--muted); font-style: italic; }
.noscript { padding: 20px; }
@media (max-width: 1100px) {
  .row { grid-template-columns: minmax(220px, 30%) minmax(160px, 1fr) 60px 100px 110px 64px; }
  .tok { display: block; }
  .tokbars, .meter, .toolbar .keys { display: none; }
  .d-body { grid-template-columns: minmax(0, 1fr) minmax(0, 1fr); }
  .d-body > section:first-child { grid-column: 1 / -1; }
}
.grid { min-width: 740px; }
@media (prefers-reduced-motion: reduce) { .twisty { transition: none; } }
`;

export const HTML_WATERFALL_SCRIPT = String.raw`
(function () {
  'use strict';
  var data = JSON.parse(document.getElementById('ccotel-data').textContent || '{}');
  var nodes = [];
  var byEl = new Map();
  var active = null;
  var selected = null;
  var panel = null;

  var STATUS = {
    success: { icon: '\u2713', text: 'ok', cls: 'success' },
    error: { icon: '\u2717', text: 'error', cls: 'error' },
    running: { icon: '\u25d4', text: 'running', cls: 'running' }
  };
  var TURN_STATE = {
    completed: { icon: '\u2713', text: 'completed', cls: 'success' },
    api_error: { icon: '\u2717', text: 'API error', cls: 'error' },
    interrupted: { icon: '\u25a0', text: 'interrupted', cls: 'interrupted' },
    open: { icon: '\u2026', text: 'open', cls: 'running' }
  };

  // Every piece of data reaches the page through textContent or an attribute
  // value set from script: never through innerHTML.
  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined && text !== null) e.textContent = String(text);
    return e;
  }

  function cell(cls, role) {
    var c = el('div', cls);
    c.setAttribute('role', role || 'gridcell');
    return c;
  }

  function badge(state) {
    var b = el('span', 'badge ' + state.cls);
    b.append(el('span', 'icon', state.icon), el('span', '', state.text));
    return b;
  }

  function renderMeta() {
    var meta = document.getElementById('meta');
    var t = data.totals;
    function item(name, value, mono) {
      var s = el('span');
      s.append(name + ' ', el('b', mono ? 'mono' : '', value));
      meta.append(s);
    }
    item('Session', data.sessionId, true);
    if (data.startIso) item('Started', data.startIso.replace('T', ' ').replace(/\.\d+Z$/, ' UTC'));
    item('Duration', data.duration);
    item('Calls', t.calls + (t.agents ? ' (' + t.agents + ' agents)' : ''));
    item('Tokens', t.tokens);
    item('Cost', t.cost);
    if (t.errors) meta.append(badge({ icon: '\u2717', text: t.errors + (t.errors === 1 ? ' error' : ' errors'), cls: 'error' }));
    if (t.running) meta.append(badge({ icon: '\u25d4', text: t.running + ' running', cls: 'running' }));
    if (data.warnings.length) meta.append(renderWarnings());
  }

  function renderWarnings() {
    var d = el('details', 'warnings');
    var n = data.warnings.length;
    d.append(el('summary', '', '\u26a0 ' + n + (n === 1 ? ' warning' : ' warnings')));
    var ul = el('ul');
    data.warnings.forEach(function (w) {
      var li = el('li');
      li.append(el('code', '', w.where), ': ' + w.reason);
      ul.append(li);
    });
    d.append(ul);
    return d;
  }

  function renderToolbar() {
    var bar = el('div', 'toolbar');
    var expand = el('button', '', 'Expand all agents');
    var collapse = el('button', '', 'Collapse all agents');
    expand.type = 'button';
    collapse.type = 'button';
    expand.addEventListener('click', function () { setAllAgents(true); });
    collapse.addEventListener('click', function () { setAllAgents(false); });
    var legend = el('div', 'legend');
    [['', 'tool'], ['agent', 'agent'], ['error', '\u2717 error'], ['running', '\u25d4 running']].forEach(function (l) {
      var s = el('span');
      s.append(el('i', 'swatch ' + l[0]), l[1]);
      legend.append(s);
    });
    bar.append(expand, collapse, el('span', 'keys', 'Keys: \u2191\u2193 move \u00b7 \u2190\u2192 collapse/expand \u00b7 Enter/Space details \u00b7 Esc close'), legend);
    return bar;
  }

  function headerRow() {
    var r = el('div', 'row head');
    r.setAttribute('role', 'row');
    var axis = el('div', 'axis');
    data.ticks.forEach(function (t, i) {
      var tick = el('span', 'tick', t.label);
      tick.style.left = t.percent + '%';
      if (i === 0) tick.classList.add('first');
      else if (t.percent > 94) tick.classList.add('last');
      axis.append(tick);
    });
    var time = cell('c-time', 'columnheader');
    time.append(axis);
    r.append(cell('c-name', 'columnheader'), time, cell('num', 'columnheader'), cell('', 'columnheader'),
      cell('num', 'columnheader'), cell('num', 'columnheader'));
    var titles = ['Call', null, 'Time', 'Status', 'Tokens in / out', 'Ctx / cost'];
    titles.forEach(function (text, i) { if (text) r.children[i].textContent = text; });
    time.setAttribute('aria-label', 'Timeline');
    return r;
  }

  // Tick labels have a fixed text width but the timeline column does not:
  // on narrow windows, drop the labels that would run into the previous one.
  function thinTicks() {
    var lastRight = -Infinity;
    document.querySelectorAll('.axis .tick').forEach(function (t) {
      t.style.visibility = '';
      var box = t.getBoundingClientRect();
      if (box.left < lastRight + 6) t.style.visibility = 'hidden';
      else lastRight = box.right;
    });
  }

  function twisty() {
    var t = el('span', 'twisty');
    t.setAttribute('aria-hidden', 'true');
    return t;
  }

  function turnRow(g) {
    var r = el('div', 'row turn');
    r.setAttribute('role', 'row');
    r.setAttribute('aria-level', '1');
    if (g.index !== null) r.dataset.turnIndex = String(g.index);
    var name = cell('c-name');
    name.append(twisty());
    if (g.index !== null) name.append(el('span', 'turn-no', 'Turn ' + g.index));
    var label = el('span', 'label', g.label);
    label.title = g.label;
    name.append(label);
    var time = cell('c-time');
    var track = el('div', 'track');
    var band = el('div', 'band');
    band.style.left = g.left + '%';
    band.style.width = g.width + '%';
    track.append(band);
    time.append(track);
    var state = cell('');
    if (TURN_STATE[g.state]) state.append(badge(TURN_STATE[g.state]));
    var cost = cell('num cost', undefined);
    cost.textContent = g.cost;
    cost.title = 'Cost of the turn';
    r.append(name, time, cell('num'), state, cell('num'), cost);
    r.children[2].textContent = g.duration;
    r.children[4].textContent = g.tokens;
    return r;
  }

  function callRow(row, depth) {
    var r = el('div', 'row call ' + row.type + ' status-' + row.status);
    r.setAttribute('role', 'row');
    r.setAttribute('aria-level', String(depth + 2));
    r.dataset.rowId = row.id;
    r.dataset.status = row.status;
    r.dataset.depth = String(depth);
    r.dataset.type = row.type;
    r.append(nameCell(row, depth), timeCell(row), cell('num'), statusCell(row), tokensCell(row), ctxCell(row));
    r.children[2].textContent = row.duration;
    return r;
  }

  function nameCell(row, depth) {
    var name = cell('c-name');
    name.style.paddingLeft = (8 + (depth + 1) * 18) + 'px';
    name.append(row.children.length ? twisty() : el('span', 'twisty-space'));
    if (row.type === 'agent') name.append(el('span', 'kind', 'agent'));
    var label = el('span', 'label', row.label);
    label.title = row.label;
    name.append(label);
    if (row.errorsInside) name.append(el('span', 'pill error', '\u2717 ' + row.errorsInside + ' inside'));
    if (row.runningInside) name.append(el('span', 'pill running', '\u25d4 ' + row.runningInside + ' inside'));
    return name;
  }

  function timeCell(row) {
    var time = cell('c-time');
    var track = el('div', 'track');
    var bar = el('div', 'bar');
    bar.style.left = row.left + '%';
    bar.style.width = row.width + '%';
    bar.title = row.label + '\n' + row.offset + ', ' + row.duration + ' \u00b7 ' + STATUS[row.status].text;
    track.append(bar);
    time.append(track);
    return time;
  }

  function statusCell(row) {
    var c = cell('');
    c.append(badge(STATUS[row.status]));
    return c;
  }

  function tokensCell(row) {
    var c = cell('tok num');
    c.append(el('span', '', row.tokens));
    var bars = el('span', 'tokbars');
    bars.setAttribute('aria-hidden', 'true');
    bars.append(gauge('in', row.tokensInPercent), gauge('out', row.tokensOutPercent));
    c.prepend(bars);
    c.title = (row.type === 'agent' ? 'The sub-agent\'s own tokens, in / out' : 'Tokens of the response that made this call, in / out') +
      ' (bars: relative to the largest call)';
    return c;
  }

  function gauge(cls, percent) {
    var track = el('b', cls);
    var fill = el('i');
    fill.style.width = percent + '%';
    track.append(fill);
    return track;
  }

  function ctxCell(row) {
    var c = cell('ctx num');
    var meter = el('span', 'meter' + (row.ctx >= 90 ? ' full' : row.ctx >= 75 ? ' warn' : ''));
    meter.setAttribute('aria-hidden', 'true');
    var fill = el('i');
    fill.style.width = row.ctx + '%';
    meter.append(fill);
    c.append(meter, el('span', '', row.ctxText));
    c.title = 'Context window fill when the call was made';
    return c;
  }

  function addNode(node, parent, body) {
    node.parent = parent;
    node.children = [];
    node.expanded = false;
    node.el.tabIndex = -1;
    if (parent) parent.children.push(node);
    nodes.push(node);
    byEl.set(node.el, node);
    body.append(node.el);
  }

  function addRows(rows, depth, parent, body) {
    rows.forEach(function (row) {
      var node = { el: callRow(row, depth), row: row };
      addNode(node, parent, body);
      if (row.children.length) {
        setExpanded(node, false);
        addRows(row.children, depth + 1, node, body);
      }
    });
  }

  function setExpanded(node, value) {
    node.expanded = value;
    node.el.setAttribute('aria-expanded', String(value));
  }

  // Parents come before their children in nodes, so one pass settles it.
  function applyVisibility() {
    nodes.forEach(function (n) {
      n.el.hidden = !!n.parent && (n.parent.el.hidden || !n.parent.expanded);
    });
  }

  function toggle(node, value) {
    if (!node.children.length) return;
    setExpanded(node, value === undefined ? !node.expanded : value);
    applyVisibility();
  }

  function setAllAgents(value) {
    nodes.forEach(function (n) { if (n.row && n.children.length) setExpanded(n, value); });
    applyVisibility();
    if (active && active.el.hidden) {
      var p = active.parent;
      while (p && p.el.hidden) p = p.parent;
      if (p) setActive(p, false);
    }
  }

  function visibleNodes() {
    return nodes.filter(function (n) { return !n.el.hidden; });
  }

  function setActive(node, focus) {
    if (!node) return;
    if (active && active !== node) active.el.tabIndex = -1;
    active = node;
    node.el.tabIndex = 0;
    if (focus) node.el.focus();
  }

  function field(dl, name, value) {
    dl.append(el('dt', '', name), el('dd', '', value));
  }

  function textBlock(title, text, empty) {
    var s = el('section');
    s.append(el('h3', '', title));
    s.append(text === null || text === '' ? el('p', 'none', empty) : el('pre', '', text));
    return s;
  }

  function showDetails(node) {
    if (!node.row) return;
    var row = node.row;
    if (selected) selected.el.removeAttribute('aria-selected');
    selected = node;
    node.el.setAttribute('aria-selected', 'true');
    panel.textContent = '';
    var head = el('div', 'd-head');
    var close = el('button', '', '\u00d7');
    close.type = 'button';
    close.setAttribute('aria-label', 'Close details');
    close.addEventListener('click', hideDetails);
    head.append(badge(STATUS[row.status]), el('h2', '', row.label), close);
    var dl = el('dl');
    field(dl, 'Status', STATUS[row.status].text);
    field(dl, 'Type', row.type === 'agent' ? 'agent (' + row.toolName + ')' : 'tool');
    field(dl, 'Tool', row.toolName);
    field(dl, 'Call id', row.id);
    field(dl, 'Started', row.start + ' (' + row.offset + ')');
    field(dl, 'Ended', row.end === null ? 'still running' : row.end);
    field(dl, 'Duration', row.duration + (row.end === null ? ' so far' : ''));
    if (row.type === 'agent') field(dl, 'Agent tokens', row.tokens + ' (in / out)');
    field(dl, 'Call tokens', row.callTokens + ' (in / out)');
    field(dl, 'Context', row.ctxText);
    if (row.parentAgentId) field(dl, 'Inside agent', row.parentAgentId);
    if (row.children.length) field(dl, 'Calls inside', String(row.children.length));
    var info = el('section');
    info.append(el('h3', '', 'Call'), dl);
    var body = el('div', 'd-body');
    body.append(info, textBlock('Input', row.input, '(no input)'),
      textBlock('Output', row.output, row.end === null ? '(no result yet)' : '(no output)'));
    panel.append(head, body);
    panel.hidden = false;
    document.documentElement.classList.add('details-open');
    node.el.scrollIntoView({ block: 'nearest' });
  }

  function hideDetails() {
    panel.hidden = true;
    document.documentElement.classList.remove('details-open');
    if (selected) selected.el.removeAttribute('aria-selected');
    selected = null;
    if (active) active.el.focus();
  }

  function onKey(e) {
    var rowEl = e.target.closest ? e.target.closest('[role="row"]') : null;
    var node = rowEl ? byEl.get(rowEl) : null;
    if (!node) return;
    var vis = visibleNodes();
    var i = vis.indexOf(node);
    switch (e.key) {
      case 'ArrowDown': setActive(vis[i + 1], true); break;
      case 'ArrowUp': setActive(vis[i - 1], true); break;
      case 'Home': setActive(vis[0], true); break;
      case 'End': setActive(vis[vis.length - 1], true); break;
      case 'ArrowRight':
        if (node.children.length && !node.expanded) toggle(node, true);
        else if (node.children.length) setActive(node.children[0], true);
        else return;
        break;
      case 'ArrowLeft':
        if (node.children.length && node.expanded) toggle(node, false);
        else if (node.parent) setActive(node.parent, true);
        else return;
        break;
      case 'Enter':
        toggle(node);
        showDetails(node);
        break;
      case ' ':
        if (node.row) showDetails(node); else toggle(node);
        break;
      case 'Escape':
        if (panel.hidden) return;
        hideDetails();
        break;
      default: return;
    }
    e.preventDefault();
  }

  function onClick(e) {
    var rowEl = e.target.closest('[role="row"]');
    var node = rowEl ? byEl.get(rowEl) : null;
    if (!node) return;
    setActive(node, true);
    if (e.target.closest('.twisty') || !node.row) toggle(node);
    else showDetails(node);
  }

  function render() {
    var app = document.getElementById('app');
    renderMeta();
    var grid = el('div', 'grid');
    grid.setAttribute('role', 'treegrid');
    grid.setAttribute('aria-label', 'Tool calls by turn, on the session time axis');
    grid.setAttribute('aria-readonly', 'true');
    grid.style.setProperty('--tick', data.tickPercent + '%');
    grid.append(headerRow());
    data.groups.forEach(function (g) {
      var turn = { el: turnRow(g), row: null };
      addNode(turn, null, grid);
      if (g.rows.length) setExpanded(turn, true);
      else turn.expanded = true;
      addRows(g.rows, 0, turn, grid);
    });
    panel = el('aside', 'details');
    panel.id = 'details';
    panel.setAttribute('aria-label', 'Call details');
    panel.hidden = true;
    app.append(renderToolbar(), grid, panel);
    applyVisibility();
    thinTicks();
    window.addEventListener('resize', thinTicks);
    grid.addEventListener('keydown', onKey);
    grid.addEventListener('click', onClick);
    document.addEventListener('keydown', function (e) {
      if (e.key === 'Escape' && !panel.hidden && !grid.contains(e.target)) hideDetails();
    });
    var first = nodes.filter(function (n) { return n.row; })[0] || nodes[0];
    if (first) setActive(first, false);
  }

  render();
})();
`;
