// The report's charts as Vega-Lite specs, in the page's order: the answer's two, then the trace's.
import type {ReportDocument} from '../document.js'
import {capacityChart, overTimeChart} from './answer-charts.js'
import {traceCharts} from './trace-charts.js'
import type {Chart} from './vega-parts.js'

export type {Chart} from './vega-parts.js'

/** Every chart of the page, the answer first. */
export function reportCharts(doc: ReportDocument): Chart[] {
  return [capacityChart(doc), overTimeChart(doc), ...traceCharts(doc)]
}
