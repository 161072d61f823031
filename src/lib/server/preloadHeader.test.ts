import { describe, expect, it } from 'vitest';
import { fetchPreloads, withFetchPreloads } from './preloadHeader';

const page = (head: string, body = '') =>
	`<!doctype html><html><head>${head}</head><body>${body}</body></html>`;

describe('fetch preloads first in the Link header', () => {
	it("takes the head's fetch preloads in order, attribute entities undone", () => {
		const html = page(
			'<link rel="icon" href="/favicon.svg"/>' +
				'<link rel="preload" as="fetch" crossorigin="anonymous" href="/history/SPX/classic_gex_full/overview?metric=vol&amp;day=2026-11-23"/>' +
				'<link href="/a.css" rel="stylesheet">' +
				'<link rel="preload" as="style" href="/b.css">' +
				'<link as="fetch" rel="preload" href="/history/SPX/orderflow_orderflow/overview?day=2026-11-23">',
			'<link rel="preload" as="fetch" href="/in-body-not-taken">'
		);
		expect(fetchPreloads(html)).toEqual([
			'/history/SPX/classic_gex_full/overview?metric=vol&day=2026-11-23',
			'/history/SPX/orderflow_orderflow/overview?day=2026-11-23'
		]);
		expect(fetchPreloads(page('<title>x</title>'))).toEqual([]);
		expect(fetchPreloads('<p>no head</p>')).toEqual([]);
	});

	it("puts them before SvelteKit's own, as CORS fetch preloads", () => {
		const kit = '<../../_app/immutable/assets/0.css>; rel="preload"; as="style"; nopush';
		expect(withFetchPreloads(kit, ['/history/SPX/s/overview?metric=vol&day=2026-11-23'])).toBe(
			'</history/SPX/s/overview?metric=vol&day=2026-11-23>; rel="preload"; as="fetch"; crossorigin, ' +
				kit
		);
		expect(withFetchPreloads(null, ['/a'])).toBe('</a>; rel="preload"; as="fetch"; crossorigin');
		expect(withFetchPreloads(kit, [])).toBe(kit);
		expect(withFetchPreloads(null, [])).toBeNull();
	});

	it('leaves out what is not a URI reference as it is (no header injection)', () => {
		const kit = '<k.css>; rel="preload"';
		for (const bad of ['/a\r\nSet-Cookie: x=1', '/a>; rel="x"', '/a b', '/"a"', '/ä'])
			expect(withFetchPreloads(kit, [bad]), bad).toBe(kit);
		expect(withFetchPreloads(kit, ['/ok%20x', '/a>b'])).toBe(
			'</ok%20x>; rel="preload"; as="fetch"; crossorigin, ' + kit
		);
	});
});
