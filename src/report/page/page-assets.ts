// The page's own style and script (inlined into the HTML).

export const pageStyle = `
:root { color-scheme: light; --ink: #1d1f23; --muted: #5b616b; --line: #d8dbe0; --accent: #2d6cdf; }
* { box-sizing: border-box; }
body { margin: 0; font: 15px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: var(--ink); background: #fff; }
header, main, footer { max-width: 1180px; margin: 0 auto; padding: 0 20px; }
header { padding-top: 18px; border-bottom: 1px solid var(--line); }
h1 { font-size: 24px; margin: 0 0 4px; }
h2 { font-size: 19px; margin: 26px 0 8px; border-bottom: 1px solid var(--line); padding-bottom: 4px; }
.meta, .note, footer { color: var(--muted); font-size: 13px; }
.headline { font-size: 17px; }
table.numbers { border-collapse: collapse; margin: 10px 0; font-variant-numeric: tabular-nums; }
table.numbers caption { text-align: left; color: var(--muted); font-size: 13px; padding-bottom: 4px; }
table.numbers th, table.numbers td { border-bottom: 1px solid var(--line); padding: 4px 10px; text-align: right; white-space: nowrap; }
table.numbers th[scope=row], table.numbers thead th:first-child { text-align: left; }
table.numbers thead th { font-weight: 600; vertical-align: bottom; }
#trace-table { font-size: 13px; display: block; overflow-x: auto; }
#answer-table { display: block; max-width: 100%; overflow-x: auto; }
#answer-table th[scope=row], #answer-table td { white-space: normal; }
#answer-table th[scope=row] { min-width: 9em; }
.nowrap { white-space: nowrap; }
#trace-table th, #trace-table td { white-space: normal; }
h3 { font-size: 16px; margin: 18px 0 4px; }
.stat-tables { display: grid; grid-template-columns: repeat(auto-fill, minmax(300px, 1fr)); gap: 0 24px; align-items: start; }
.stat-tables table.numbers { width: 100%; }
.info-tables { display: grid; grid-template-columns: repeat(auto-fill, minmax(460px, 1fr)); gap: 0 24px; align-items: start; }
.info-tables table.numbers td { white-space: normal; overflow-wrap: anywhere; }
table.wide { display: block; max-width: 100%; overflow-x: auto; font-size: 13px; }
table.wide thead th { white-space: normal; min-width: 4em; }
.sub { color: var(--muted); font-weight: 400; font-size: 12px; }
.charts { display: grid; grid-template-columns: repeat(auto-fill, minmax(560px, 1fr)); gap: 12px 20px; }
figure.chart { margin: 8px 0; break-inside: avoid; page-break-inside: avoid; }
figcaption { font-size: 13px; color: var(--muted); margin-bottom: 4px; min-height: 3em; }
.vega { min-height: 300px; }
ul.notices { font-size: 13px; padding-left: 18px; }
li.warning { color: #a34b00; }
code { font-size: 12px; }
footer { border-top: 1px solid var(--line); margin-top: 28px; padding-top: 8px; padding-bottom: 18px; }
#vg-tooltip-element { font: 12px system-ui, sans-serif; }
@media (max-width: 640px) { .charts { grid-template-columns: 1fr; } .vega { overflow-x: auto; } }
@media print {
  @page { size: A4; margin: 12mm; }
  body { font-size: 11pt; }
  header, main, footer { max-width: none; padding: 0; }
  .charts { display: block; }
  figure.chart { page-break-inside: avoid; break-inside: avoid; }
  section#trace { break-before: page; }
  #trace-table, #answer-table { display: table; }
  #vg-tooltip-element { display: none; }
}
`

/**
 * Renders every chart; `window.lmtReport` tells a reader (the browser test) when all are drawn, what failed, and how
 * many items each named mark has.
 */
export const pageScript = `
(function () {
  var charts = JSON.parse(document.getElementById('lmt-charts').textContent);
  var state = { total: charts.length, rendered: 0, errors: [], views: {} };
  window.lmtReport = state;
  if (state.total === 0) document.body.setAttribute('data-rendered', 'true');
  state.markCounts = function (id) {
    var counts = {};
    (function walk(node) {
      if (!node) return;
      if (node.marktype && node.name) counts[node.name] = (counts[node.name] || 0) + (node.items ? node.items.length : 0);
      (node.items || []).forEach(walk);
    })(state.views[id].scenegraph().root);
    return counts;
  };
  charts.forEach(function (c) {
    var el = document.getElementById(c.id);
    vegaEmbed(el, c.spec, { renderer: 'svg', actions: false }).then(function (result) {
      state.views[c.id] = result.view;
      el.setAttribute('data-rendered', 'true');
      if (++state.rendered === state.total) document.body.setAttribute('data-rendered', 'true');
    }).catch(function (err) {
      state.errors.push(c.id + ': ' + err);
      el.textContent = 'This chart could not be drawn: ' + err;
      console.error(err);
    });
  });
})();
`
