// The script of `ccotel show --html`, inlined into the page at build time
// (scripts/build-viewer.mjs). It reads the display-ready JSON the page embeds
// and builds DOM nodes from it, only through textContent and attributes: data
// never goes through innerHTML.
//
// The rows of a turn are built the first time the turn is shown, and only the
// visible rows are in the grid, so a session of thousands of calls opens at
// once. Filters, search and "slowest first" recompute which rows are visible.
(function () {
  'use strict';
  const data = JSON.parse(document.getElementById('ccotel-data').textContent || '{}');
  /** Every turn and call node, parents before children. */
  const nodes = [];
  const turns = [];
  const byEl = new Map();
  const filter = { errors: false, tool: '', agentType: '', text: '', slowest: false };
  let visible = [];
  let openBeforeFilter = null;
  let active = null;
  let selected = null;
  let panel = null;
  let grid = null;
  let header = null;
  let countEl = null;
  const controls = {};

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

  function plural(n, word) {
    return n + ' ' + word + (n === 1 ? '' : 's');
  }

  // ---- the model: one node per turn and per call -------------------------

  function buildModel() {
    data.groups.forEach((g) => {
      const turn = {
        group: g,
        row: null,
        parent: null,
        children: [],
        depth: -1,
        order: turns.length,
        el: null,
        expanded: g.calls <= data.collapsePast,
      };
      turns.push(turn);
      nodes.push(turn);
      addCalls(g.rows, turn, 0, g);
    });
  }

  function addCalls(rows, parent, depth, g) {
    rows.forEach((row, i) => {
      const node = {
        group: g,
        row: row,
        parent: parent,
        children: [],
        depth: depth,
        order: i,
        el: null,
        expanded: false,
      };
      parent.children.push(node);
      nodes.push(node);
      addCalls(row.children, node, depth + 1, g);
    });
  }

  function filtering() {
    return filter.errors || filter.tool !== '' || filter.agentType !== '' || filter.text !== '';
  }

  /** Marks each node `hit` when it or a descendant matches; turns likewise. */
  function computeHits() {
    const text = filter.text.toLowerCase();
    const selfMatch = (n, inAgent) =>
      (!filter.errors || n.row.status === 'error') &&
      (filter.tool === '' || n.row.toolName === filter.tool) &&
      (filter.agentType === '' || inAgent) &&
      (text === '' || n.row.label.toLowerCase().indexOf(text) >= 0);
    const visit = (n, inAgent) => {
      const inside = inAgent || (filter.agentType !== '' && n.row.agentType === filter.agentType);
      n.self = selfMatch(n, inside);
      let hit = n.self;
      n.children.forEach((c) => {
        if (visit(c, inside)) hit = true;
      });
      n.hit = hit;
      return hit;
    };
    turns.forEach((t) => {
      let hit = false;
      t.children.forEach((c) => {
        if (visit(c, false)) hit = true;
      });
      t.hit = hit;
    });
  }

  /** Opens the way to every match; closes what holds none. */
  function expandToHits() {
    nodes.forEach((n) => {
      if (n.children.length) n.expanded = n.children.some((c) => c.hit);
    });
  }

  function ordered(children) {
    if (!filter.slowest) return children;
    return children.slice().sort((a, b) => b.row.ms - a.row.ms || a.order - b.order);
  }

  function visibleList() {
    const on = filtering();
    const out = [];
    const walk = (list) => {
      ordered(list).forEach((n) => {
        if (on && !n.hit) return;
        out.push(n);
        if (n.expanded) walk(n.children);
      });
    };
    turns.forEach((t) => {
      if (on && !t.hit) return;
      out.push(t);
      if (t.expanded) walk(t.children);
    });
    return out;
  }

  // ---- drawing ------------------------------------------------------------

  function elOf(node) {
    if (!node.el) {
      node.el = node.row ? callRow(node.row, node.depth, node.group) : turnRow(node.group);
      node.el.tabIndex = -1;
      byEl.set(node.el, node);
    }
    if (node.children.length) node.el.setAttribute('aria-expanded', String(node.expanded));
    return node.el;
  }

  function refresh() {
    visible = visibleList();
    // Moving rows out of the grid and back drops the focus: give it back.
    const focused = active && active.el && document.activeElement === active.el ? active : null;
    grid.replaceChildren(header, ...visible.map(elOf));
    if (focused && visible.indexOf(focused) >= 0) focused.el.focus();
    const total = plural(data.totals.calls, 'call');
    countEl.textContent = filtering()
      ? nodes.filter((n) => n.row && n.self).length + ' of ' + total + ' match'
      : total;
    if (!active || visible.indexOf(active) < 0) {
      let p = active && active.parent;
      while (p && visible.indexOf(p) < 0) p = p.parent;
      setActive(p || visible[0] || null, false);
    }
  }

  function renderMeta() {
    const meta = document.getElementById('meta');
    const t = data.totals;
    const item = (name, value, mono) => {
      const s = el('span');
      s.append(name + ' ', el('b', mono ? 'mono' : '', value));
      meta.append(s);
    };
    // The title is often "Session <id>": the id is not said twice.
    if (data.title.indexOf(data.sessionId) < 0) item('Session', data.sessionId, true);
    if (data.startIso) item('Started', data.startIso.replace('T', ' ').replace(/\.\d+Z$/, ' UTC'));
    item(
      'Duration',
      data.duration + (data.groups.length > 1 ? ' (' + data.activeDuration + ' in turns)' : ''),
    );
    item('Calls', t.calls + (t.agents ? ' (' + t.agents + ' agents)' : ''));
    item('Tokens', t.tokens);
    item('Cost', t.cost);
    if (t.errors)
      meta.append(badge({ icon: '\u2717', text: plural(t.errors, 'error'), cls: 'error' }));
    if (t.running)
      meta.append(badge({ icon: '\u25d4', text: t.running + ' running', cls: 'running' }));
    if (data.warnings.length) meta.append(renderWarnings());
  }

  function renderWarnings() {
    const d = el('details', 'warnings');
    d.append(el('summary', '', '\u26a0 ' + plural(data.warnings.length, 'warning')));
    const ul = el('ul');
    data.warnings.forEach((w) => {
      const li = el('li');
      li.append(el('code', '', w.where), ': ' + w.reason);
      ul.append(li);
    });
    d.append(ul);
    return d;
  }

  /** One row per turn on the folded session axis; a click opens the turn. */
  function renderOverview() {
    const nav = el('nav', 'overview');
    nav.setAttribute('aria-label', 'Turns on one session axis');
    const note = data.breaks.length
      ? ', idle gaps over ' + data.foldGap + ' folded (\u2307 marks)'
      : '';
    nav.append(el('div', 'ov-title', 'Overview: one row per turn' + note));
    // The break marks are one background shared by every track.
    const marks = data.breaks
      .map(
        (b) =>
          'linear-gradient(var(--break), var(--break)) ' + b.percent + '% 0 / 1px 100% no-repeat',
      )
      .join(', ');
    const list = el('div', 'ov-list');
    if (marks) list.style.setProperty('--breaks', marks);
    turns.forEach((turn) => {
      const g = turn.group;
      const b = el('button', 'ov-row' + (g.errors || g.state === 'api_error' ? ' failed' : ''));
      b.type = 'button';
      b.dataset.turn = g.index === null ? '' : String(g.index);
      const name = el('span', 'ov-name');
      name.append(
        el('span', 'turn-no', g.index === null ? '\u2013' : 'Turn ' + g.index),
        el('span', 'ov-clock', g.clock),
        el('span', 'ov-label', g.label),
      );
      if (g.errors) name.append(el('span', 'pill error', '\u2717 ' + g.errors));
      const track = el('span', 'ov-track');
      const bar = el('span', 'ov-bar');
      bar.style.left = g.left + '%';
      bar.style.width = g.width + '%';
      track.append(bar);
      b.append(name, track, el('span', 'num', g.duration));
      b.title =
        g.label +
        '\n' +
        g.clock +
        ' UTC \u00b7 ' +
        g.duration +
        ' \u00b7 ' +
        plural(g.calls, 'call');
      b.addEventListener('click', () => openTurn(turn));
      // One tab stop for the whole list (arrow keys move in it), so Tab gets
      // from the overview to the filters without crossing every turn.
      b.tabIndex = list.children.length === 0 ? 0 : -1;
      list.append(b);
    });
    list.addEventListener('keydown', onOverviewKey);
    nav.append(list);
    return nav;
  }

  function onOverviewKey(e) {
    const rows = Array.prototype.slice.call(e.currentTarget.children);
    const i = rows.indexOf(e.target);
    if (i < 0) return;
    const to = {
      ArrowDown: i + 1,
      ArrowUp: i - 1,
      Home: 0,
      End: rows.length - 1,
    }[e.key];
    if (to === undefined || !rows[to]) return;
    rows[i].tabIndex = -1;
    rows[to].tabIndex = 0;
    rows[to].focus();
    e.preventDefault();
  }

  function openTurn(turn) {
    turn.expanded = true;
    refresh();
    setActive(turn, true);
    turn.el.scrollIntoView({ block: 'start' });
  }

  function option(value, text) {
    const o = el('option', '', text);
    o.value = value;
    return o;
  }

  function checkbox(name, label, key) {
    const wrap = el('label', 'check');
    const input = el('input');
    input.type = 'checkbox';
    input.name = name;
    input.addEventListener('change', () => {
      filter[name] = input.checked;
      changed(name !== 'slowest');
    });
    wrap.append(input, label, el('kbd', '', key));
    controls[name] = input;
    return wrap;
  }

  function searchBox() {
    const search = el('input', 'search');
    search.type = 'search';
    search.placeholder = 'Search labels';
    search.setAttribute('aria-label', 'Search call labels');
    search.addEventListener('input', () => {
      filter.text = search.value.trim();
      changed(true);
    });
    controls.text = search;
    return search;
  }

  /** A select narrowing the calls to one value of `filter[key]` ('' for all). */
  function filterSelect(key, ariaLabel, allText, values) {
    const select = el('select');
    select.setAttribute('aria-label', ariaLabel);
    select.append(option('', allText));
    values.forEach((v) => select.append(option(v, v)));
    select.addEventListener('change', () => {
      filter[key] = select.value;
      changed(true);
    });
    controls[key] = select;
    return select;
  }

  function button(text, onClick) {
    const b = el('button', '', text);
    b.type = 'button';
    b.addEventListener('click', onClick);
    return b;
  }

  function legend() {
    const box = el('div', 'legend');
    [
      ['', 'tool'],
      ['agent', 'agent'],
      ['error', '\u2717 error'],
      ['running', '\u25d4 running'],
    ].forEach((l) => {
      const s = el('span');
      s.append(el('i', 'swatch ' + l[0]), l[1]);
      box.append(s);
    });
    return box;
  }

  function renderToolbar() {
    const bar = el('div', 'toolbar');
    bar.setAttribute('role', 'search');
    const parts = [
      searchBox(),
      checkbox('errors', 'Errors only', 'e'),
      filterSelect('tool', 'Only calls of a tool', 'All tools', data.tools),
    ];
    if (data.agentTypes.length)
      parts.push(
        filterSelect(
          'agentType',
          'Only calls of a sub-agent type',
          'All sub-agents',
          data.agentTypes,
        ),
      );
    parts.push(checkbox('slowest', 'Slowest first', 's'));
    countEl = el('span', 'count');
    countEl.setAttribute('aria-live', 'polite');
    const keys = el(
      'span',
      'keys',
      'Keys: / search \u00b7 e errors \u00b7 s slowest \u00b7 \u2191\u2193 move \u00b7 \u2190\u2192 collapse/expand \u00b7 Enter/Space details \u00b7 Esc close',
    );
    const expand = button('Expand all', () => setAll(true));
    const collapse = button('Collapse all', () => setAll(false));
    bar.append(...parts, expand, collapse, countEl, keys, legend());
    return bar;
  }

  /** After a filter change: open the way to the matches (`reveal`), then redraw. */
  function changed(reveal) {
    if (filtering()) {
      // What was open before filtering comes back when the filters are cleared.
      if (!openBeforeFilter) openBeforeFilter = nodes.map((n) => n.expanded);
      computeHits();
      if (reveal) expandToHits();
    } else if (openBeforeFilter) {
      nodes.forEach((n, i) => {
        n.expanded = openBeforeFilter[i];
      });
      openBeforeFilter = null;
    }
    refresh();
  }

  function setAll(value) {
    nodes.forEach((n) => {
      if (n.children.length) n.expanded = value;
    });
    refresh();
  }

  function headerRow() {
    const r = el('div', 'row head');
    r.setAttribute('role', 'row');
    const titles = [
      'Call',
      'Timeline (each turn on its own axis)',
      'Time',
      'Status',
      'Tokens in / out',
      'Ctx / cost',
    ];
    const classes = ['c-name', 'c-time', 'num', '', 'num', 'num'];
    titles.forEach((text, i) => {
      const c = cell(classes[i], 'columnheader');
      c.textContent = text;
      r.append(c);
    });
    return r;
  }

  function twisty() {
    const t = el('span', 'twisty');
    t.setAttribute('aria-hidden', 'true');
    return t;
  }

  /** The tick labels of a turn's own axis, over its row's timeline cell. */
  function turnAxis(g) {
    const axis = el('div', 'axis');
    g.ticks.forEach((t, i) => {
      const tick = el('span', 'tick', t.label);
      tick.style.left = t.percent + '%';
      if (i === 0) tick.classList.add('first');
      else if (t.percent > 94) tick.classList.add('last');
      axis.append(tick);
    });
    return axis;
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
    name.append(label, el('span', 'calls', plural(g.calls, 'call')));
    if (g.errors) name.append(el('span', 'pill error', '\u2717 ' + g.errors));
    const time = cell('c-time');
    time.append(turnAxis(g));
    const state = cell('');
    if (TURN_STATE[g.state]) state.append(badge(TURN_STATE[g.state]));
    const cost = cell('num cost');
    cost.textContent = g.cost;
    cost.title = 'Cost of the turn';
    r.append(name, time, cell('num'), state, cell('num'), cost);
    r.children[2].textContent = g.duration;
    r.children[4].textContent = g.tokens;
    return r;
  }

  function callRow(row, depth, g) {
    const r = el('div', 'row call ' + row.type + ' status-' + row.status);
    r.setAttribute('role', 'row');
    r.setAttribute('aria-level', String(depth + 2));
    r.dataset.rowId = row.id;
    r.dataset.status = row.status;
    r.dataset.depth = String(depth);
    r.dataset.type = row.type;
    r.dataset.tool = row.toolName;
    r.dataset.ms = String(row.ms);
    if (row.agentType) r.dataset.agentType = row.agentType;
    r.style.setProperty('--tick', g.tickPercent + '%');
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
    if (row.type === 'agent') name.append(el('span', 'kind', row.agentType || 'agent'));
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
      row.label +
      '\n' +
      row.offset +
      ' into the turn, ' +
      row.duration +
      ' \u00b7 ' +
      STATUS[row.status].text;
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

  // ---- interaction ----------------------------------------------------------

  function toggle(node, value) {
    if (!node.children.length) return;
    node.expanded = value === undefined ? !node.expanded : value;
    refresh();
  }

  function setActive(node, focus) {
    if (!node) return;
    if (active && active !== node && active.el) active.el.tabIndex = -1;
    active = node;
    const e = elOf(node);
    e.tabIndex = 0;
    if (focus) e.focus();
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
    if (selected && selected.el) selected.el.removeAttribute('aria-selected');
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
    field(
      dl,
      'Type',
      row.type === 'agent'
        ? 'agent (' + row.toolName + (row.agentType ? ', ' + row.agentType : '') + ')'
        : 'tool',
    );
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
    if (selected && selected.el) selected.el.removeAttribute('aria-selected');
    selected = null;
    if (active && active.el) active.el.focus();
  }

  function onKey(e) {
    const rowEl = e.target.closest ? e.target.closest('[role="row"]') : null;
    const node = rowEl ? byEl.get(rowEl) : null;
    if (!node) return;
    const i = visible.indexOf(node);
    switch (e.key) {
      case 'ArrowDown':
        setActive(visible[i + 1], true);
        break;
      case 'ArrowUp':
        setActive(visible[i - 1], true);
        break;
      case 'Home':
        setActive(visible[0], true);
        break;
      case 'End':
        setActive(visible[visible.length - 1], true);
        break;
      case 'ArrowRight':
        if (node.children.length && !node.expanded) toggle(node, true);
        else if (node.children.length && visible[i + 1] && visible[i + 1].parent === node)
          setActive(visible[i + 1], true);
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

  /** Page-wide keys: `/` to search, `e` errors only, `s` slowest first, Esc. */
  function onDocumentKey(e) {
    const typing = e.target.closest && e.target.closest('input, select, textarea');
    if (e.key === 'Escape') {
      if (e.target === controls.text && controls.text.value !== '') {
        controls.text.value = '';
        filter.text = '';
        changed(true);
      } else if (!panel.hidden && !grid.contains(e.target)) {
        hideDetails();
      } else if (typing && active && active.el) {
        active.el.focus();
      }
      return;
    }
    if (typing || e.ctrlKey || e.metaKey || e.altKey) return;
    if (e.key === '/') {
      controls.text.focus();
      e.preventDefault();
    } else if (e.key === 'e' || e.key === 's') {
      const box = controls[e.key === 'e' ? 'errors' : 'slowest'];
      box.checked = !box.checked;
      box.dispatchEvent(new Event('change'));
      e.preventDefault();
    }
  }

  function render() {
    const app = document.getElementById('app');
    renderMeta();
    buildModel();
    grid = el('div', 'grid');
    grid.setAttribute('role', 'treegrid');
    grid.setAttribute('aria-label', 'Tool calls by turn, each turn on its own time axis');
    grid.setAttribute('aria-readonly', 'true');
    header = headerRow();
    panel = el('aside', 'details');
    panel.id = 'details';
    panel.setAttribute('aria-label', 'Call details');
    panel.hidden = true;
    const parts = [renderToolbar(), grid, panel];
    if (turns.length > 1) parts.unshift(renderOverview());
    app.append(...parts);
    refresh();
    grid.addEventListener('keydown', onKey);
    grid.addEventListener('click', onClick);
    document.addEventListener('keydown', onDocumentKey);
    const first = visible.filter((n) => n.row)[0] || visible[0];
    if (first) setActive(first, false);
  }

  render();
})();
