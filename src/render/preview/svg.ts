/** An ECharts option drawn as an SVG string with ECharts' server-side SVG renderer (no DOM, no canvas). */
import * as echarts from 'echarts';
import type { PictureOption } from './option.js';

export function svgOf(picture: PictureOption): string {
  const chart = echarts.init(null, null, { renderer: 'svg', ssr: true, width: picture.width, height: picture.height });
  try {
    chart.setOption(picture.option);
    return chart.renderToSVGString();
  } finally {
    chart.dispose();
  }
}
