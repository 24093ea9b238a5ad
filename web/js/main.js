/**
 * Page entry point: applies the text direction (`?dir=rtl` or
 * `<html dir="rtl">`), starts the dashboard and exposes a read-only
 * `window.chartcast.inspect()` for diagnostics.
 */

import { Dashboard } from './dashboard.js';

const params = new URLSearchParams(window.location.search);
const dirParam = params.get('dir');
if (dirParam === 'rtl' || dirParam === 'ltr') document.documentElement.dir = dirParam;
const rtl = document.documentElement.dir === 'rtl';

const byId = (id) => document.getElementById(id);
const dashboard = new Dashboard({
  grid: byId('grid'),
  status: byId('status'),
  viewers: byId('viewers'),
  nameForm: byId('name-form'),
  nameInput: byId('name-input'),
  nameError: byId('name-error'),
  live: byId('live'),
  lastUpdate: byId('last-update'),
}, { rtl });

window.chartcast = Object.freeze({ inspect: () => dashboard.inspect() });
dashboard.start();
