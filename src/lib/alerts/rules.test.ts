/**
 * Rule and webhook validation: defaults, and a clear message naming the field for each kind of
 * bad input (unknown ticker or field value, a level that is not a number, a non-http webhook).
 */
import { describe, expect, it } from 'vitest';
import { toAlertFiring } from './firing';
import { describeRule, groupOfRule, parseRule, parseWebhook } from './rules';

describe('parseRule', () => {
	it('fills defaults and accepts form text for numbers', () => {
		const r = parseRule({ id: 'a', ticker: 'spx', kind: 'cross', level: 'price', price: '6850.5' });
		expect(r).toEqual({
			ok: true,
			value: {
				id: 'a',
				name: '',
				ticker: 'SPX',
				paused: false,
				cooldownSeconds: 300,
				window: null,
				webhooks: null,
				package: 'classic',
				category: 'gex_full',
				kind: 'cross',
				level: 'price',
				price: 6850.5,
				lookback: 'current',
				direction: 'either',
				hysteresis: 0
			}
		});
		if (r.ok) {
			expect(describeRule(r.value)).toBe('SPX spot crosses 6850.50 (Full)');
			expect(groupOfRule(r.value)).toBe('SPX_classic_gex_full');
		}
	});

	it.each([
		[{ ticker: 'NOPE', kind: 'cross', level: 'zero_gamma' }, 'unknown ticker "NOPE"'],
		[{ ticker: 'SPX', kind: 'cross', level: 'gamma_flip' }, 'level must be one of'],
		[{ ticker: 'SPX', kind: 'cross', level: 'price', price: 'abc' }, 'price must be a number'],
		[{ ticker: 'SPX', kind: 'teleport' }, 'kind must be one of'],
		[{ ticker: 'SPX', kind: 'level_move', level: 'zero_gamma' }, 'points is missing'],
		[
			{ ticker: 'SPX', kind: 'gex_sign', window: { start: '16:00', end: '09:30' } },
			'window.end 09:30 must be after'
		],
		[{ ticker: 'SPX', kind: 'gex_sign', cooldownSeconds: -1 }, 'cooldownSeconds must be at least 0']
	])('%j: %s', (raw, message) => {
		const r = parseRule({ id: 'x', ...raw });
		expect(r.ok).toBe(false);
		if (!r.ok) expect(r.error).toContain(message);
	});

	it('describes the orderflow rule and its group', () => {
		const r = parseRule({ id: 'f', ticker: 'NDX', kind: 'flow_cross', flow: 'dex', value: -5 });
		expect(r.ok && describeRule(r.value)).toBe('NDX DEX flow (0DTE) crosses -5');
		expect(r.ok && groupOfRule(r.value)).toBe('NDX_orderflow_orderflow');
	});

	it('names categories as the views do in words, and keeps the service ids as data', () => {
		const r = parseRule({
			id: 's',
			ticker: 'SPX',
			kind: 'level_move',
			package: 'state',
			category: 'gex_zero',
			level: 'zero_gamma',
			points: 5
		});
		if (!r.ok) throw new Error(r.error);
		expect(describeRule(r.value)).toBe('SPX zero gamma moves more than 5 points (State 0DTE)');
		const f = toAlertFiring(r.value, {
			ruleId: 's',
			ticker: 'SPX',
			kind: 'level_move',
			at: 1,
			message: 'm',
			values: {}
		});
		expect(f).toMatchObject({ package: 'state', category: 'gex_zero' });
		expect(f.description).not.toContain('gex_');
		const next = parseRule({ id: 'n', ticker: 'SPX', kind: 'gex_sign', category: 'gex_one' });
		expect(next.ok && describeRule(next.value)).toBe('SPX net GEX (volume) changes sign (Next)');
	});
});

describe('parseWebhook', () => {
	it('accepts http(s) and names it by host', () => {
		expect(
			parseWebhook({ id: 'w', url: 'https://discord.com/api/webhooks/1/x', format: 'discord' })
		).toEqual({
			ok: true,
			value: {
				id: 'w',
				name: 'discord.com',
				url: 'https://discord.com/api/webhooks/1/x',
				format: 'discord',
				paused: false
			}
		});
	});

	it.each([
		['ftp://example.com/x', 'url must be http(s), got ftp'],
		['javascript:alert(1)', 'url must be http(s)'],
		['not a url', 'url is not a URL'],
		['https://user:pw@example.com/', 'must not carry a user name']
	])('%s', (url, message) => {
		const r = parseWebhook({ id: 'w', url });
		expect(r.ok).toBe(false);
		if (!r.ok) expect(r.error).toContain(message);
	});
});
