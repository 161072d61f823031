import { describe, expect, it } from 'vitest';
import { replayEarlyTaps } from './earlyTaps';

/** A button as the replay sees it: on the page or not, enabled or not, and what it was asked. */
function button(
	name: string,
	log: string[],
	state: { connected?: boolean; disabled?: boolean } = {}
) {
	const attributes = new Set(['data-early-tap']);
	return {
		name,
		attributes,
		isConnected: state.connected ?? true,
		disabled: state.disabled ?? false,
		click: () => log.push(name),
		removeAttribute: (a: string) => attributes.delete(a)
	};
}

function windowWith(taps: ReturnType<typeof button>[] | undefined): Window {
	return { __gexdeckEarlyTaps: taps } as unknown as Window;
}

describe('replayEarlyTaps', () => {
	it('clicks each kept button once, in tap order, and unmarks it', () => {
		const log: string[] = [];
		const taps = [button('palette', log), button('gex_zero', log), button('zoom-in', log)];
		const win = windowWith(taps);
		expect(replayEarlyTaps(win)).toBe(3);
		expect(log).toEqual(['palette', 'gex_zero', 'zoom-in']);
		for (const b of taps) expect(b.attributes.has('data-early-tap')).toBe(false);
	});

	it('skips a button no longer on the page or disabled since, and unmarks it too', () => {
		const log: string[] = [];
		const gone = button('gone', log, { connected: false });
		const off = button('off', log, { disabled: true });
		const on = button('on', log);
		expect(replayEarlyTaps(windowWith([gone, off, on]))).toBe(1);
		expect(log).toEqual(['on']);
		expect(off.attributes.has('data-early-tap')).toBe(false);
	});

	it('replays once: the kept list is gone after the first call', () => {
		const log: string[] = [];
		const win = windowWith([button('palette', log)]);
		replayEarlyTaps(win);
		expect(replayEarlyTaps(win)).toBe(0);
		expect(log).toEqual(['palette']);
		expect(win.__gexdeckEarlyTaps).toBeUndefined();
	});

	it('does nothing when nothing was tapped', () => {
		expect(replayEarlyTaps(windowWith(undefined))).toBe(0);
	});
});
