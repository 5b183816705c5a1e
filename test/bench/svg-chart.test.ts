// The capacity charts are SVG written from the sweep's figures: every value is drawn and labelled,
// a missing value breaks its line, and text is escaped.
import t from 'tap';
import { drawChart, shortNumber } from '../../bench/suite/svg-chart.js';

t.test('a chart holds every point, label and category', async (t) => {
  const svg = drawChart({
    title: 'WORKERS <&>',
    subtitle: 'req/s and p99',
    xLabel: 'WORKERS',
    categories: ['1', '2', '4'],
    panels: [
      { title: 'req/s', series: [{ name: '1 KB', values: [6900, 8900, 7100] }, { name: '93 KB', values: [308, null, 480] }] },
      { title: 'p99 ms (log scale)', log: true, series: [{ name: '93 KB', values: [544, 72, 77] }] },
    ],
  });
  t.match(svg, /^<svg xmlns="http:\/\/www.w3.org\/2000\/svg"/);
  t.match(svg, /<\/svg>\n$/);
  t.match(svg, 'WORKERS &lt;&amp;&gt;', 'text is escaped');
  t.equal(svg.match(/<circle /g)?.length, 8, 'one marker per value, none for the gap');
  t.equal(svg.match(/<polyline /g)?.length, 2, 'the gap leaves the 93 KB req/s line without a segment; two lines are drawn');
  for (const label of ['6900', '8900', '308', '480', '544', '72', '77', '1 KB', '93 KB']) t.match(svg, `>${label}<`, label);
});

t.test('short axis numbers', async (t) => {
  t.same([12_000, 1500, 250, 2.5, 0.25, 0, 3_400_000].map(shortNumber), ['12k', '1500', '250', '2.5', '0.25', '0', '3.4M']);
});
