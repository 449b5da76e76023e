// ledgerboard: sorting and filtering of the board tables (progressive enhancement; the tables are complete without it).
// Reads only data-* attributes the page rendered; writes text with textContent, never markup. State lives in the URL
// query (?q=&verdict=&sort=&dir=), so a filtered view is citable and a reload reproduces it. docs/site.md.
const tables = [...document.querySelectorAll('table.board-table')];
const form = document.querySelector('form[data-board-filter]');
const ORDER = { PASS: 0, NO_GAIN: 1, REGRESSION: 2, NO_VERDICT: 3, baseline: 4 };
const KEYS = {
  rank: (r) => num(r.dataset.rank),
  subject: (r) => str(`${r.dataset.model ?? ''} ${r.dataset.agent ?? ''}`),
  board: (r) => str(r.dataset.board),
  headline: (r) => num(r.dataset.headline),
  delta: (r) => num(r.dataset.delta),
  verdict: (r) => (r.dataset.verdict in ORDER ? ORDER[r.dataset.verdict] : null),
  cost: (r) => num(r.dataset.cost),
};
const FIRST = { rank: 'asc', subject: 'asc', board: 'asc', headline: 'desc', delta: 'desc', verdict: 'asc', cost: 'asc' };
const num = (v) => (v === undefined || v === '' ? null : Number(v));
const str = (v) => (v ? v.toLowerCase() : null);
const state = readState();

function readState() {
  const p = new URLSearchParams(location.search);
  const sort = p.get('sort') ?? '';
  const dir = p.get('dir') === 'asc' || p.get('dir') === 'desc' ? p.get('dir') : FIRST[sort];
  return { q: p.get('q') ?? '', verdict: p.get('verdict') ?? '', sort: sort in KEYS ? sort : '', dir };
}

function writeState() {
  const p = new URLSearchParams(location.search);
  for (const [k, v] of [['q', state.q], ['verdict', state.verdict], ['sort', state.sort], ['dir', state.sort ? state.dir : '']]) {
    if (v) p.set(k, v);
    else p.delete(k);
  }
  const query = p.toString();
  history.replaceState(null, '', `${location.pathname}${query ? `?${query}` : ''}${location.hash}`);
}

function sortTable(table) {
  const body = table.tBodies[0];
  const rows = [...body.rows];
  const key = KEYS[state.sort];
  const sign = state.dir === 'desc' ? -1 : 1;
  rows.sort((a, b) => {
    if (key) {
      const [x, y] = [key(a), key(b)];
      if (x !== y) {
        if (x === null) return 1; // unknown values last, whichever the direction
        if (y === null) return -1;
        return (x < y ? -1 : 1) * sign;
      }
    }
    return Number(a.dataset.i) - Number(b.dataset.i);
  });
  for (const row of rows) body.appendChild(row);
  for (const th of table.tHead.querySelectorAll('th[data-sort]')) {
    if (th.dataset.sort === state.sort) th.setAttribute('aria-sort', state.dir === 'desc' ? 'descending' : 'ascending');
    else th.removeAttribute('aria-sort');
  }
}

/** Whether `term` occurs in `text` where a word starts (the text's start, or after a character that is no letter or digit). */
function startsWord(text, term) {
  for (let i = text.indexOf(term); i !== -1; i = text.indexOf(term, i + 1)) if (i === 0 || !/[\p{L}\p{N}]/u.test(text[i - 1])) return true;
  return false;
}

function filterRows() {
  const terms = state.q.toLowerCase().split(/\s+/).filter(Boolean);
  let shown = 0;
  let all = 0;
  for (const table of tables) {
    for (const row of table.tBodies[0].rows) {
      const d = row.dataset;
      // Model and agent only (never the verdict or a board title), each word typed at the start of a word of theirs:
      // "sage" finds lumen/sage-2026 but not system_message.
      const text = `${d.model ?? ''} ${d.agent ?? ''}`.toLowerCase();
      const ok = terms.every((t) => startsWord(text, t)) && (!state.verdict || d.verdict === state.verdict);
      row.hidden = !ok;
      all++;
      if (ok) shown++;
    }
  }
  if (form) form.elements.namedItem('count').textContent = `${shown} of ${all} rows`;
}

for (const table of tables) {
  [...table.tBodies[0].rows].forEach((row, i) => (row.dataset.i = String(i)));
  for (const th of table.tHead.querySelectorAll('th[data-sort]')) {
    const button = document.createElement('button');
    button.type = 'button';
    button.className = 'sort';
    while (th.firstChild) button.appendChild(th.firstChild);
    th.appendChild(button);
    button.addEventListener('click', () => {
      const key = th.dataset.sort;
      state.dir = state.sort === key ? (state.dir === 'asc' ? 'desc' : 'asc') : FIRST[key];
      state.sort = key;
      tables.forEach(sortTable);
      writeState();
    });
  }
}

if (form) {
  const q = form.elements.namedItem('q');
  const verdict = form.elements.namedItem('verdict');
  q.value = state.q;
  verdict.value = state.verdict;
  state.verdict = verdict.value; // an unknown verdict in the URL reads as "any"
  form.hidden = false;
  const update = () => {
    state.q = q.value;
    state.verdict = verdict.value;
    filterRows();
    writeState();
  };
  q.addEventListener('input', update);
  verdict.addEventListener('change', update);
  form.addEventListener('submit', (e) => e.preventDefault());
}
if (state.sort) tables.forEach(sortTable);
filterRows();
