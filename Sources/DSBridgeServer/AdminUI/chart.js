// SPDX-License-Identifier: MIT
// Small live charts: one figure's recent values as a line on a canvas, with its latest value.

import { formatNumber } from './metrics.js';

/** The values a chart keeps (at one reading every two seconds: two minutes). */
export const CHART_POINTS = 60;

/** A titled chart of one figure; `push` adds a reading (null: no value this time). */
export class LiveChart {
  constructor(container, title, unit) {
    this.values = [];
    this.unit = unit;
    this.figure = document.createElement('figure');
    this.figure.className = 'chart';
    const caption = document.createElement('figcaption');
    const name = document.createElement('span');
    name.textContent = title;
    this.latest = document.createElement('strong');
    this.latest.textContent = '—';
    caption.append(name, this.latest);
    this.canvas = document.createElement('canvas');
    this.canvas.setAttribute('role', 'img');
    this.canvas.setAttribute('aria-label', title);
    this.figure.append(caption, this.canvas);
    container.append(this.figure);
  }

  /** Forgets the values (another node's readings start). */
  clear() {
    this.values = [];
    this.latest.textContent = '—';
    this.draw();
  }

  push(value) {
    this.values.push(value);
    if (this.values.length > CHART_POINTS) this.values.shift();
    this.latest.textContent = value === null ? '—' : formatNumber(value) + (this.unit ? ' ' + this.unit : '');
    this.draw();
  }

  draw() {
    const ratio = window.devicePixelRatio || 1;
    const width = this.canvas.clientWidth || 200;
    const height = this.canvas.clientHeight || 48;
    this.canvas.width = Math.round(width * ratio);
    this.canvas.height = Math.round(height * ratio);
    const g = this.canvas.getContext('2d');
    if (!g) return;
    g.setTransform(ratio, 0, 0, ratio, 0, 0);
    g.clearRect(0, 0, width, height);
    const known = this.values.filter((v) => v !== null && Number.isFinite(v));
    if (known.length === 0) return;
    const top = Math.max(...known, 1e-9);
    const step = width / (CHART_POINTS - 1);
    const x0 = width - (this.values.length - 1) * step;
    const y = (v) => height - 2 - (v / top) * (height - 6);
    const style = getComputedStyle(this.figure);
    g.lineWidth = 1.5;
    g.strokeStyle = style.getPropertyValue('--chart-line').trim() || '#2563eb';
    g.fillStyle = style.getPropertyValue('--chart-fill').trim() || 'rgba(37,99,235,0.12)';
    g.beginPath();
    let started = false;
    let firstX = 0;
    let lastX = 0;
    this.values.forEach((v, i) => {
      if (v === null || !Number.isFinite(v)) return;
      const x = x0 + i * step;
      if (!started) {
        g.moveTo(x, y(v));
        firstX = x;
        started = true;
      } else {
        g.lineTo(x, y(v));
      }
      lastX = x;
    });
    g.stroke();
    g.lineTo(lastX, height);
    g.lineTo(firstX, height);
    g.closePath();
    g.fill();
  }
}
