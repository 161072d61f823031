import { describe, expect, it } from 'vitest';
import { replayEarlyTaps, type EarlyAction } from './earlyTaps';

interface Fake {
	name: string;
	attributes: Set<string>;
	isConnected: boolean;
	disabled: boolean;
	type: string;
	value: string;
	checked: boolean;
	click(): void;
	removeAttribute(a: string): void;
	dispatchEvent(e: Event): boolean;
}

/** A control as the replay sees it, writing what it was asked into `log`. */
function control(
	name: string,
	log: string[],
	state: Partial<Pick<Fake, 'isConnected' | 'disabled' | 'type' | 'value' | 'checked'>> = {}
): Fake {
	const fake: Fake = {
		name,
		attributes: new Set(['data-early-tap']),
		isConnected: true,
		disabled: false,
		type: 'button',
		value: '',
		checked: false,
		...state,
		click: () => log.push(`click ${name}`),
		removeAttribute: (a) => fake.attributes.delete(a),
		dispatchEvent: (e) => {
			log.push(`${e.type} ${name}=${fake.type === 'checkbox' ? fake.checked : fake.value}`);
			expect(e.bubbles).toBe(true);
			return true;
		}
	};
	return fake;
}

const tap = (el: Fake): EarlyAction => ({ el: el as unknown as HTMLElement });
const edit = (el: Fake, value: string, checked = false): EarlyAction => ({
	el: el as unknown as HTMLElement,
	value,
	checked
});
const windowWith = (kept: EarlyAction[] | undefined) =>
	({ __gexdeckEarly: kept }) as unknown as Window;

describe('replayEarlyTaps', () => {
	it('clicks each kept button, in the order kept, and unmarks it', () => {
		const log: string[] = [];
		const taps = [control('palette', log), control('gex_zero', log), control('zoom-in', log)];
		expect(replayEarlyTaps(windowWith(taps.map(tap)))).toBe(3);
		expect(log).toEqual(['click palette', 'click gex_zero', 'click zoom-in']);
		for (const b of taps) expect(b.attributes.has('data-early-tap')).toBe(false);
	});

	it('gives a changed control its kept value back, then its input and change events', () => {
		const log: string[] = [];
		// The hydration put the select back to what the server drew.
		const kind = control('kind', log, { type: 'select-one', value: 'cross' });
		const box = control('box', log, { type: 'checkbox', checked: false });
		expect(replayEarlyTaps(windowWith([edit(kind, 'level_move'), edit(box, 'on', true)]))).toBe(2);
		expect(kind.value).toBe('level_move');
		expect(box.checked).toBe(true);
		expect(log).toEqual([
			'input kind=level_move',
			'change kind=level_move',
			'input box=true',
			'change box=true'
		]);
	});

	it('gives a radio its kept check, and a box the hydration checked again its kept uncheck', () => {
		const log: string[] = [];
		const radio = control('side', log, { type: 'radio', value: 'up', checked: false });
		const box = control('box', log, { type: 'checkbox', checked: true });
		replayEarlyTaps(windowWith([edit(radio, 'up', true), edit(box, 'on', false)]));
		expect(radio.checked).toBe(true);
		expect(radio.value).toBe('up');
		expect(box.checked).toBe(false);
	});

	it('keeps taps and picks in one order', () => {
		const log: string[] = [];
		const view = control('view', log, { type: 'select-one', value: 'classic' });
		const add = control('add', log);
		replayEarlyTaps(windowWith([edit(view, 'heatmap'), tap(add)]));
		expect(log).toEqual(['input view=heatmap', 'change view=heatmap', 'click add']);
	});

	it('skips a control no longer on the page or disabled since, and unmarks it too', () => {
		const log: string[] = [];
		const gone = control('gone', log, { isConnected: false });
		const off = control('off', log, { disabled: true });
		const on = control('on', log);
		expect(replayEarlyTaps(windowWith([gone, off, on].map(tap)))).toBe(1);
		expect(log).toEqual(['click on']);
		expect(off.attributes.has('data-early-tap')).toBe(false);
		expect(gone.attributes.has('data-early-tap')).toBe(false);
	});

	it('replays once: the kept list is emptied and gone after the first call', () => {
		const log: string[] = [];
		const kept = [tap(control('palette', log))];
		const win = windowWith(kept);
		replayEarlyTaps(win);
		expect(replayEarlyTaps(win)).toBe(0);
		expect(log).toEqual(['click palette']);
		expect(win.__gexdeckEarly).toBeUndefined();
		// The keeper's own list (still referenced by app.html's script) is empty too.
		expect(kept).toEqual([]);
	});

	it('does nothing when nothing was kept', () => {
		expect(replayEarlyTaps(windowWith(undefined))).toBe(0);
	});
});
