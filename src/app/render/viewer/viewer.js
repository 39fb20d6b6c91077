(function () {
  'use strict';
  const data = JSON.parse(document.getElementById('ccotel-data').textContent || '{}');
  const nodes = [];
  const byEl = new Map();
  let active = null;
  let selected = null;
  let panel = null;

  const STATUS = {
    success: { icon: '\u2713', text: 'ok', cls: 'success' },
    error: { icon: '\u2717', text: 'error', cls: 'error' },
    running: { icon: '\u25d4', text: 'running', cls: 'running' },
  };
  const TURN_STATE = {
    completed: { icon: '\u2713', text: 'completed', cls: 'success' },
    api_error: { icon: '\u2717', text: 'API error', cls: 'error' },
    interrupted: { icon: '\u25a0', text: 'interrupted', cls: 'interrupted' },
    open: { icon: '\u2026', text: 'open', cls: 'running' },
  };

  // Every piece of data reaches the page through textContent or an attribute
  // value set from script: never through innerHTML.
  function el(tag, cls, text) {
    const e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined && text !== null) e.textContent = String(text);
    return e;
  }

  function cell(cls, role) {
    const c = el('div', cls);
    c.setAttribute('role', role || 'gridcell');
    return c;
  }

  function badge(state) {
    const b = el('span', 'badge ' + state.cls);
    b.append(el('span', 'icon', state.icon), el('span', '', state.text));
    return b;
  }

  function renderMeta() {
    const meta = document.getElementById('meta');
    const t = data.totals;
    function item(name, value, mono) {
      const s = el('span');
      s.append(name + ' ', el('b', mono ? 'mono' : '', value));
      meta.append(s);
    }
    item('Session', data.sessionId, true);
    if (data.startIso) item('Started', data.startIso.replace('T', ' ').replace(/\.\d+Z$/, ' UTC'));
    item('Duration', data.duration);
    item('Calls', t.calls + (t.agents ? ' (' + t.agents + ' agents)' : ''));
    item('Tokens', t.tokens);
    item('Cost', t.cost);
    if (t.errors)
      meta.append(
        badge({
          icon: '\u2717',
          text: t.errors + (t.errors === 1 ? ' error' : ' errors'),
          cls: 'error',
        }),
      );
    if (t.running)
      meta.append(badge({ icon: '\u25d4', text: t.running + ' running', cls: 'running' }));
    if (data.warnings.length) meta.append(renderWarnings());
  }

  function renderWarnings() {
    const d = el('details', 'warnings');
    const n = data.warnings.length;
    d.append(el('summary', '', '\u26a0 ' + n + (n === 1 ? ' warning' : ' warnings')));
    const ul = el('ul');
    data.warnings.forEach(function (w) {
      const li = el('li');
      li.append(el('code', '', w.where), ': ' + w.reason);
      ul.append(li);
    });
    d.append(ul);
    return d;
  }

  function renderToolbar() {
    const bar = el('div', 'toolbar');
    const expand = el('button', '', 'Expand all agents');
    const collapse = el('button', '', 'Collapse all agents');
    expand.type = 'button';
    collapse.type = 'button';
    expand.addEventListener('click', function () {
      setAllAgents(true);
    });
    collapse.addEventListener('click', function () {
      setAllAgents(false);
    });
    const legend = el('div', 'legend');
    [
      ['', 'tool'],
      ['agent', 'agent'],
      ['error', '\u2717 error'],
      ['running', '\u25d4 running'],
    ].forEach(function (l) {
      const s = el('span');
      s.append(el('i', 'swatch ' + l[0]), l[1]);
      legend.append(s);
    });
    bar.append(
      expand,
      collapse,
      el(
        'span',
        'keys',
        'Keys: \u2191\u2193 move \u00b7 \u2190\u2192 collapse/expand \u00b7 Enter/Space details \u00b7 Esc close',
      ),
      legend,
    );
    return bar;
  }

  function headerRow() {
    const r = el('div', 'row head');
    r.setAttribute('role', 'row');
    const axis = el('div', 'axis');
    data.ticks.forEach(function (t, i) {
      const tick = el('span', 'tick', t.label);
      tick.style.left = t.percent + '%';
      if (i === 0) tick.classList.add('first');
      else if (t.percent > 94) tick.classList.add('last');
      axis.append(tick);
    });
    const time = cell('c-time', 'columnheader');
    time.append(axis);
    r.append(
      cell('c-name', 'columnheader'),
      time,
      cell('num', 'columnheader'),
      cell('', 'columnheader'),
      cell('num', 'columnheader'),
      cell('num', 'columnheader'),
    );
    const titles = ['Call', null, 'Time', 'Status', 'Tokens in / out', 'Ctx / cost'];
    titles.forEach(function (text, i) {
      if (text) r.children[i].textContent = text;
    });
    time.setAttribute('aria-label', 'Timeline');
    return r;
  }

  // Tick labels have a fixed text width but the timeline column does not:
  // on narrow windows, drop the labels that would run into the previous one.
  function thinTicks() {
    let lastRight = -Infinity;
    document.querySelectorAll('.axis .tick').forEach(function (t) {
      t.style.visibility = '';
      const box = t.getBoundingClientRect();
      if (box.left < lastRight + 6) t.style.visibility = 'hidden';
      else lastRight = box.right;
    });
  }

  function twisty() {
    const t = el('span', 'twisty');
    t.setAttribute('aria-hidden', 'true');
    return t;
  }

  function turnRow(g) {
    const r = el('div', 'row turn');
    r.setAttribute('role', 'row');
    r.setAttribute('aria-level', '1');
    if (g.index !== null) r.dataset.turnIndex = String(g.index);
    const name = cell('c-name');
    name.append(twisty());
    if (g.index !== null) name.append(el('span', 'turn-no', 'Turn ' + g.index));
    const label = el('span', 'label', g.label);
    label.title = g.label;
    name.append(label);
    const time = cell('c-time');
    const track = el('div', 'track');
    const band = el('div', 'band');
    band.style.left = g.left + '%';
    band.style.width = g.width + '%';
    track.append(band);
    time.append(track);
    const state = cell('');
    if (TURN_STATE[g.state]) state.append(badge(TURN_STATE[g.state]));
    const cost = cell('num cost', undefined);
    cost.textContent = g.cost;
    cost.title = 'Cost of the turn';
    r.append(name, time, cell('num'), state, cell('num'), cost);
    r.children[2].textContent = g.duration;
    r.children[4].textContent = g.tokens;
    return r;
  }

  function callRow(row, depth) {
    const r = el('div', 'row call ' + row.type + ' status-' + row.status);
    r.setAttribute('role', 'row');
    r.setAttribute('aria-level', String(depth + 2));
    r.dataset.rowId = row.id;
    r.dataset.status = row.status;
    r.dataset.depth = String(depth);
    r.dataset.type = row.type;
    r.append(
      nameCell(row, depth),
      timeCell(row),
      cell('num'),
      statusCell(row),
      tokensCell(row),
      ctxCell(row),
    );
    r.children[2].textContent = row.duration;
    return r;
  }

  function nameCell(row, depth) {
    const name = cell('c-name');
    name.style.paddingLeft = 8 + (depth + 1) * 18 + 'px';
    name.append(row.children.length ? twisty() : el('span', 'twisty-space'));
    if (row.type === 'agent') name.append(el('span', 'kind', 'agent'));
    const label = el('span', 'label', row.label);
    label.title = row.label;
    name.append(label);
    if (row.errorsInside)
      name.append(el('span', 'pill error', '\u2717 ' + row.errorsInside + ' inside'));
    if (row.runningInside)
      name.append(el('span', 'pill running', '\u25d4 ' + row.runningInside + ' inside'));
    return name;
  }

  function timeCell(row) {
    const time = cell('c-time');
    const track = el('div', 'track');
    const bar = el('div', 'bar');
    bar.style.left = row.left + '%';
    bar.style.width = row.width + '%';
    bar.title =
      row.label + '\n' + row.offset + ', ' + row.duration + ' \u00b7 ' + STATUS[row.status].text;
    track.append(bar);
    time.append(track);
    return time;
  }

  function statusCell(row) {
    const c = cell('');
    c.append(badge(STATUS[row.status]));
    return c;
  }

  function tokensCell(row) {
    const c = cell('tok num');
    c.append(el('span', '', row.tokens));
    const bars = el('span', 'tokbars');
    bars.setAttribute('aria-hidden', 'true');
    bars.append(gauge('in', row.tokensInPercent), gauge('out', row.tokensOutPercent));
    c.prepend(bars);
    c.title =
      (row.type === 'agent'
        ? "The sub-agent's own tokens, in / out"
        : 'Tokens of the response that made this call, in / out') +
      ' (bars: relative to the largest call)';
    return c;
  }

  function gauge(cls, percent) {
    const track = el('b', cls);
    const fill = el('i');
    fill.style.width = percent + '%';
    track.append(fill);
    return track;
  }

  function ctxCell(row) {
    const c = cell('ctx num');
    const meter = el('span', 'meter' + (row.ctx >= 90 ? ' full' : row.ctx >= 75 ? ' warn' : ''));
    meter.setAttribute('aria-hidden', 'true');
    const fill = el('i');
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
      const node = { el: callRow(row, depth), row: row };
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
    nodes.forEach(function (n) {
      if (n.row && n.children.length) setExpanded(n, value);
    });
    applyVisibility();
    if (active && active.el.hidden) {
      let p = active.parent;
      while (p && p.el.hidden) p = p.parent;
      if (p) setActive(p, false);
    }
  }

  function visibleNodes() {
    return nodes.filter(function (n) {
      return !n.el.hidden;
    });
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
    const s = el('section');
    s.append(el('h3', '', title));
    s.append(text === null || text === '' ? el('p', 'none', empty) : el('pre', '', text));
    return s;
  }

  function showDetails(node) {
    if (!node.row) return;
    const row = node.row;
    if (selected) selected.el.removeAttribute('aria-selected');
    selected = node;
    node.el.setAttribute('aria-selected', 'true');
    panel.textContent = '';
    const head = el('div', 'd-head');
    const close = el('button', '', '\u00d7');
    close.type = 'button';
    close.setAttribute('aria-label', 'Close details');
    close.addEventListener('click', hideDetails);
    head.append(badge(STATUS[row.status]), el('h2', '', row.label), close);
    const dl = el('dl');
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
    const info = el('section');
    info.append(el('h3', '', 'Call'), dl);
    const body = el('div', 'd-body');
    body.append(
      info,
      textBlock('Input', row.input, '(no input)'),
      textBlock('Output', row.output, row.end === null ? '(no result yet)' : '(no output)'),
    );
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
    const rowEl = e.target.closest ? e.target.closest('[role="row"]') : null;
    const node = rowEl ? byEl.get(rowEl) : null;
    if (!node) return;
    const vis = visibleNodes();
    const i = vis.indexOf(node);
    switch (e.key) {
      case 'ArrowDown':
        setActive(vis[i + 1], true);
        break;
      case 'ArrowUp':
        setActive(vis[i - 1], true);
        break;
      case 'Home':
        setActive(vis[0], true);
        break;
      case 'End':
        setActive(vis[vis.length - 1], true);
        break;
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
        if (node.row) showDetails(node);
        else toggle(node);
        break;
      case 'Escape':
        if (panel.hidden) return;
        hideDetails();
        break;
      default:
        return;
    }
    e.preventDefault();
  }

  function onClick(e) {
    const rowEl = e.target.closest('[role="row"]');
    const node = rowEl ? byEl.get(rowEl) : null;
    if (!node) return;
    setActive(node, true);
    if (e.target.closest('.twisty') || !node.row) toggle(node);
    else showDetails(node);
  }

  function render() {
    const app = document.getElementById('app');
    renderMeta();
    const grid = el('div', 'grid');
    grid.setAttribute('role', 'treegrid');
    grid.setAttribute('aria-label', 'Tool calls by turn, on the session time axis');
    grid.setAttribute('aria-readonly', 'true');
    grid.style.setProperty('--tick', data.tickPercent + '%');
    grid.append(headerRow());
    data.groups.forEach(function (g) {
      const turn = { el: turnRow(g), row: null };
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
    const first =
      nodes.filter(function (n) {
        return n.row;
      })[0] || nodes[0];
    if (first) setActive(first, false);
  }

  render();
})();
