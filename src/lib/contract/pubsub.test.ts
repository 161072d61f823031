import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
	ackMessage,
	connectedMessage,
	disconnectedMessage,
	groupDataText,
	joinGroupMessage,
	parseClientMessage,
	parseServerMessage
} from './pubsub';

describe('json.webpubsub.azure.v1 frames', () => {
	it('round-trips server messages', () => {
		for (const m of [
			connectedMessage('c1', 'acct-1'),
			disconnectedMessage('Websocket Session Limit Reached'),
			ackMessage(1, false, { name: 'Forbidden', message: 'nope' }),
			{ type: 'pong' as const }
		]) {
			expect(parseServerMessage(JSON.stringify(m))).toEqual({ ok: true, message: m });
		}
	});

	it('builds group frames that parse back', () => {
		const text = groupDataText('ES_SPX_classic_gex_full', 'AAEC/+8=');
		expect(parseServerMessage(text)).toEqual({
			ok: true,
			message: {
				type: 'message',
				from: 'group',
				group: 'ES_SPX_classic_gex_full',
				dataType: 'protobuf',
				data: 'AAEC/+8='
			}
		});
		expect(JSON.parse(groupDataText('we"ird', 'x'))).toMatchObject({ group: 'we"ird' });
	});

	it('accepts binary data type and refuses non-string binary data', () => {
		expect(
			parseServerMessage(
				'{"type":"message","from":"group","group":"g","dataType":"binary","data":"AA=="}'
			).ok
		).toBe(true);
		expect(
			parseServerMessage(
				'{"type":"message","from":"group","group":"g","dataType":"binary","data":5}'
			).ok
		).toBe(false);
	});

	it('parses client messages and tolerates unknown ones', () => {
		expect(parseClientMessage(JSON.stringify(joinGroupMessage('blue_SPX_spot', 3)))).toEqual({
			ok: true,
			message: { type: 'joinGroup', group: 'blue_SPX_spot', ackId: 3 }
		});
		expect(parseClientMessage('{"type":"ping"}')).toEqual({ ok: true, message: { type: 'ping' } });
		expect(parseClientMessage('{"type":"whatever"}')).toMatchObject({
			ok: true,
			message: { type: 'unknown' }
		});
		expect(parseClientMessage('{"type":"joinGroup"}').ok).toBe(false);
		expect(parseClientMessage('not json').ok).toBe(false);
	});

	it('never throws', () => {
		fc.assert(
			fc.property(fc.oneof(fc.string(), fc.json()), (s) => {
				expect(typeof parseClientMessage(s).ok).toBe('boolean');
				expect(typeof parseServerMessage(s).ok).toBe('boolean');
			})
		);
	});
});
