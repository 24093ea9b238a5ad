/**
 * Colours for canvas painting, read from the page's CSS custom properties so
 * the light and dark themes (prefers-color-scheme) live in style.css alone.
 */

/** Series colours (Tableau 10 order), used by legend, marks and annotations. */
const SERIES_LIGHT = ['#4e79a7', '#f28e2b', '#59a14f', '#e15759', '#76b7b2', '#edc948', '#b07aa1', '#ff9da7', '#9c755f', '#bab0ac'];
const SERIES_DARK = ['#6f9fd8', '#ffa64d', '#7cc66e', '#ff7b7d', '#8fd3cd', '#f4d35e', '#d39bc5', '#ffb3bb', '#c49a80', '#d4cbc6'];

const darkQuery = window.matchMedia('(prefers-color-scheme: dark)');

/**
 * The current theme's colours.
 * @returns {{background:string, panel:string, text:string, muted:string, grid:string,
 *   axis:string, band:string, dim:string, boxBackground:string, boxBorder:string,
 *   series:string[], dark:boolean}}
 */
export function currentTheme() {
  const style = getComputedStyle(document.documentElement);
  const read = (name, fallback) => style.getPropertyValue(name).trim() || fallback;
  const dark = darkQuery.matches;
  return {
    dark,
    background: read('--bg', dark ? '#111418' : '#f4f5f7'),
    panel: read('--panel', dark ? '#1b1f24' : '#ffffff'),
    text: read('--fg', dark ? '#e6e8eb' : '#1d2430'),
    muted: read('--muted', dark ? '#9aa3ad' : '#5d6673'),
    grid: read('--grid', dark ? '#2c323a' : '#e5e7eb'),
    axis: read('--axis', dark ? '#59616b' : '#9aa1ab'),
    band: read('--band', dark ? 'rgba(255,255,255,0.14)' : 'rgba(0,0,0,0.10)'),
    dim: read('--dim', dark ? 'rgba(27,31,36,0.72)' : 'rgba(255,255,255,0.72)'),
    boxBackground: read('--box-bg', dark ? '#262b32' : '#ffffff'),
    boxBorder: read('--box-border', dark ? '#3a414a' : '#d5d9df'),
    series: dark ? SERIES_DARK : SERIES_LIGHT,
  };
}

/**
 * Calls `listener` whenever the colour scheme changes.
 * @param {() => void} listener
 */
export function onThemeChange(listener) {
  darkQuery.addEventListener('change', listener);
}

/**
 * The colour of the series at `index`.
 * @param {ReturnType<typeof currentTheme>} theme
 * @param {number} index
 */
export function seriesColor(theme, index) {
  return theme.series[index % theme.series.length];
}

/**
 * `color` (a #rrggbb string) with the given alpha, as an rgba() string.
 * Other colour syntaxes are returned unchanged.
 */
export function withAlpha(color, alpha) {
  const m = /^#([0-9a-f]{6})$/i.exec(color ?? '');
  if (!m) return color;
  const n = parseInt(m[1], 16);
  return `rgba(${(n >> 16) & 255},${(n >> 8) & 255},${n & 255},${alpha})`;
}
