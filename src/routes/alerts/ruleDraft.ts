/** The alerts page's rule form state: every field as the form posts it (strings). */
import type { AlertRule } from '$lib/alerts/rules';

export type Draft = Record<string, string>;

export function blankDraft(): Draft {
	return {
		id: '',
		name: '',
		ticker: 'SPX',
		kind: 'cross',
		package: 'classic',
		category: 'gex_full',
		level: 'zero_gamma',
		price: '',
		lookback: 'current',
		direction: 'either',
		hysteresis: '0',
		points: '5',
		size: '',
		basis: 'vol',
		flow: 'dex',
		expiry: 'zero',
		value: '0',
		cooldownSeconds: '300',
		windowOn: '',
		windowStart: '09:30',
		windowEnd: '16:00',
		marketDays: 'on',
		allWebhooks: 'on',
		paused: 'false'
	};
}

export function draftOf(r: AlertRule): Draft {
	const d = blankDraft();
	for (const [k, v] of Object.entries(r)) {
		if (typeof v === 'string' || typeof v === 'number') d[k] = String(v);
	}
	d.paused = String(r.paused);
	d.windowOn = r.window ? 'on' : '';
	if (r.window) {
		d.windowStart = r.window.start;
		d.windowEnd = r.window.end;
		d.marketDays = r.window.marketDays ? 'on' : '';
	}
	d.allWebhooks = r.webhooks === null ? 'on' : '';
	return d;
}
