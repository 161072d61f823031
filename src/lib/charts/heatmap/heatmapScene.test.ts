import { describe, expect, it } from 'vitest';
import { divergingLut } from './heatmapScene';

describe('divergingLut', () => {
	it('reads theme colours as the browser computes them (rgb) as it reads hex', () => {
		const hex = divergingLut('#ef5b5b', '#0e1116', '#2fbf71');
		expect(divergingLut('rgb(239, 91, 91)', 'rgb(14, 17, 22)', 'rgb(47, 191, 113)')).toEqual(hex);
		// Both ends are the given colours (alpha 255, little-endian RGBA).
		expect(hex[0]).toBe(((255 << 24) | (0x5b << 16) | (0x5b << 8) | 0xef) >>> 0);
		expect(hex[255]).toBe(((255 << 24) | (0x71 << 16) | (0xbf << 8) | 0x2f) >>> 0);
	});
});
