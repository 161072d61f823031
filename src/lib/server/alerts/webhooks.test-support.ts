/**
 * The firing and the hook both webhook suites send: webhooks.test.ts (delivery over real
 * sockets) and webhooks.edges.test.ts (the sender's schedule through its injectable post).
 */
import type { AlertFiring } from '../../alerts/firing';
import type { Webhook } from '../../alerts/rules';

export const firing: AlertFiring = {
	type: 'gexdeck.alert',
	id: 'f1',
	ruleId: 'r1',
	ruleName: 'SPX zero gamma',
	description: 'SPX spot crosses zero gamma (Full)',
	ticker: 'SPX',
	kind: 'cross',
	at: 1795014823,
	time: '2026-11-18T15:13:43.000Z',
	firedAt: 1795014823500,
	direction: 'up',
	message: 'SPX spot 6801 crossed above zero gamma 6800',
	values: { spot: 6801, level: 6800 },
	link: 'http://127.0.0.1:3000/SPX/classic/gex_full?at=1795014823',
	test: false
};

/** Hook `w1` in `format` at `url` (a host nothing listens on unless a test gives its own). */
export const webhook = (
	format: Webhook['format'] = 'json',
	url = 'https://hooks.example/x'
): Webhook => ({ id: 'w1', name: 'desk', url, format, paused: false });
