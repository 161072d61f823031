/**
 * The chart cursor attachment on a stand-in <svg> (an EventTarget with a bounding box): hover
 * and tap select, arrow keys step (the strike charts from the row at spot), Escape clears, a
 * mouse drag longer than the chart's minimum zooms to the dragged span and a short one does
 * not, a touch drag zooms only where the chart allows it, and the listeners go with the chart.
 */
import { flushSync } from 'svelte';
import { describe, expect, it } from 'vitest';
import { ChartCursor, ValueCursor, type ChartCursorOptions } from './chartCursor.svelte';
import { stepStrike } from './cursor';

/** svelte/events attaches pointer listeners a microtask late (a Chrome workaround). */
const attached = () => Promise.resolve();

const LEFT = 100;
const TOP = 50;
const STRIKES = [6900, 6905, 6910, 6915, 6920];
/** 10 px per strike from the SVG's left edge. */
const pick = (px: number) =>
	STRIKES[Math.max(0, Math.min(STRIKES.length - 1, Math.round(px / 10)))];

function fakeSvg() {
	const target = new EventTarget() as EventTarget & { getBoundingClientRect(): DOMRect };
	target.getBoundingClientRect = () => ({ left: LEFT, top: TOP }) as DOMRect;
	let listeners = 0;
	const add = target.addEventListener.bind(target);
	const remove = target.removeEventListener.bind(target);
	target.addEventListener = (...args: Parameters<EventTarget['addEventListener']>) => {
		listeners++;
		add(...args);
	};
	target.removeEventListener = (...args: Parameters<EventTarget['removeEventListener']>) => {
		listeners--;
		remove(...args);
	};
	const pointer = (type: string, x: number, pointerType = 'mouse') =>
		target.dispatchEvent(
			Object.assign(new Event(type), { clientX: LEFT + x, clientY: TOP, pointerType })
		);
	const key = (k: string) => {
		const e = Object.assign(new Event('keydown', { cancelable: true }), { key: k });
		target.dispatchEvent(e);
		return e.defaultPrevented;
	};
	return { svg: target as unknown as SVGSVGElement, pointer, key, listeners: () => listeners };
}

function strikeCursor(extra: Partial<ChartCursorOptions> = {}) {
	const zooms: [number, number][] = [];
	const cursor = new ChartCursor({
		axis: 'x',
		pick,
		step: (k, current) =>
			k === 'ArrowRight' || k === 'ArrowLeft'
				? stepStrike(STRIKES, current, 2, k === 'ArrowRight' ? 1 : -1)
				: undefined,
		brush: { minSpan: () => 12, end: (a, b) => zooms.push([pick(a), pick(b)]) },
		...extra
	});
	return { cursor, zooms };
}

describe('ChartCursor', () => {
	it('selects under the pointer, steps with arrow keys from spot and clears on Escape', async () => {
		const { cursor } = strikeCursor();
		const { svg, pointer, key, listeners } = fakeSvg();
		const detach = cursor.attach(svg) as () => void;
		await attached();
		pointer('pointermove', 31);
		expect(cursor.selected).toBe(6915);
		expect(key('ArrowLeft')).toBe(true);
		expect(cursor.selected).toBe(6910);
		key('Escape');
		expect(cursor.selected).toBeNull();
		// From no selection the first arrow steps from the row at spot (index 2).
		key('ArrowRight');
		expect(cursor.selected).toBe(6915);
		expect(key('a')).toBe(false);
		expect(cursor.selected).toBe(6915);
		expect(listeners()).toBeGreaterThan(0);
		detach();
		expect(listeners()).toBe(0);
	});

	it('zooms to a dragged span longer than the minimum and draws the brush meanwhile', async () => {
		const { cursor, zooms } = strikeCursor();
		const { svg, pointer } = fakeSvg();
		const stop = $effect.root(() => {
			cursor.attach(svg);
		});
		await attached();
		pointer('pointerdown', 5, 'touch');
		pointer('pointermove', 12, 'touch');
		flushSync();
		expect(cursor.brush).toEqual({ from: 5, size: 7 });
		pointer('pointerup', 12, 'touch');
		expect(zooms).toEqual([]); // 7 px: a tap
		expect(cursor.brush).toBeNull();
		pointer('pointerdown', 38);
		pointer('pointermove', 2);
		pointer('pointerup', 2);
		expect(zooms).toEqual([[6900, 6920]]);
		stop();
	});

	it('zooms only on mouse drags where the chart says so, and clears a hover on leaving', async () => {
		const { cursor, zooms } = strikeCursor({ clearOnLeave: true });
		const mouseOnly = new ChartCursor({
			axis: 'y',
			pick,
			step: () => undefined,
			brush: { mouseOnly: true, minSpan: () => 12, end: (a, b) => zooms.push([a, b]) }
		});
		const a = fakeSvg();
		const b = fakeSvg();
		cursor.attach(a.svg);
		mouseOnly.attach(b.svg);
		await attached();
		b.pointer('pointerdown', 0, 'touch');
		b.pointer('pointermove', 0, 'touch');
		b.pointer('pointerup', 0, 'touch');
		expect(zooms).toEqual([]);
		a.pointer('pointermove', 20);
		a.pointer('pointerleave', 20, 'touch');
		expect(cursor.selected).toBe(6910);
		a.pointer('pointerleave', 20, 'mouse');
		expect(cursor.selected).toBeNull();
	});
});

describe('ValueCursor.slider', () => {
	const text = {
		label: 'IV by strike',
		empty: 'no strike selected',
		describe: (v: number) => `strike ${v}`
	};

	it('makes the svg a focusable slider over the values that reads the selection', async () => {
		let values = STRIKES;
		const cursor = new ValueCursor(
			() => values,
			(px) => 6900 + px / 2,
			() => 6912
		);
		expect(cursor.slider(text)).toEqual({
			tabindex: 0,
			role: 'slider',
			'aria-roledescription': 'chart',
			'aria-valuemin': 6900,
			'aria-valuemax': 6920,
			// Nothing selected: where the first arrow lands (spot).
			'aria-valuenow': 6912,
			'aria-valuetext': 'no strike selected',
			'aria-label': 'IV by strike'
		});
		const { svg, pointer, key } = fakeSvg();
		cursor.attach(svg);
		await attached();
		pointer('pointerdown', 19, 'touch'); // a tap at 6909.5: the nearest strike
		expect(cursor.slider(text)).toMatchObject({
			'aria-valuenow': 6910,
			'aria-valuetext': 'strike 6910'
		});
		key('ArrowRight');
		expect(cursor.slider({ ...text, roledescription: 'strike chart' })).toMatchObject({
			'aria-roledescription': 'strike chart',
			'aria-valuenow': 6915,
			'aria-valuetext': 'strike 6915'
		});
		key('Escape');
		values = [];
		expect(cursor.slider(text)).toMatchObject({
			'aria-valuemin': 0,
			'aria-valuemax': 0,
			'aria-valuenow': 6912,
			'aria-valuetext': 'no strike selected'
		});
	});

	it('without a start, reports the first value until one is selected', () => {
		const cursor = new ValueCursor(
			() => [7, 14, 30],
			(px) => px
		);
		expect(cursor.slider(text)['aria-valuenow']).toBe(7);
		expect(
			new ValueCursor(
				() => [],
				(px) => px
			).slider(text)['aria-valuenow']
		).toBe(0);
	});
});

describe('stepStrike', () => {
	it('steps from the selection, else from the start row, clamped to the ends', () => {
		expect(stepStrike(STRIKES, null, -1, 1)).toBe(6900);
		expect(stepStrike(STRIKES, null, 4, 1)).toBe(6920);
		expect(stepStrike(STRIKES, 6905, 4, -1)).toBe(6900);
		expect(stepStrike(STRIKES, 6900, 4, -1)).toBe(6900);
		expect(stepStrike(STRIKES, 1234, 1, 1)).toBe(6910);
		expect(stepStrike([], null, 0, 1)).toBeUndefined();
	});
});
