import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ackMessage, groupMessage, parseClientMessage } from './protocol';

describe('json.webpubsub.azure.v1 (server side)', () => {
	it('parses joinGroup, leaveGroup and ping', () => {
		expect(parseClientMessage('{"type":"joinGroup","group":"x_SPX_spot","ackId":3}')).toEqual({
			type: 'joinGroup',
			group: 'x_SPX_spot',
			ackId: 3
		});
		expect(parseClientMessage('{"type":"leaveGroup","group":"g"}')).toEqual({
			type: 'leaveGroup',
			group: 'g'
		});
		expect(parseClientMessage('{"type":"ping"}')).toEqual({ type: 'ping' });
		expect(parseClientMessage('{"type":"sendToGroup","group":"g","ackId":1}')).toEqual({
			type: 'publish',
			ackId: 1
		});
	});

	it('never throws: anything else is unknown', () => {
		fc.assert(
			fc.property(fc.oneof(fc.string(), fc.json()), (text) => {
				const msg = parseClientMessage(text);
				expect(['joinGroup', 'leaveGroup', 'ping', 'publish', 'unknown']).toContain(msg.type);
			})
		);
		expect(parseClientMessage('{"type":"joinGroup"}')).toEqual({ type: 'unknown' });
		expect(parseClientMessage('[1]')).toEqual({ type: 'unknown' });
	});

	it('builds envelopes that are valid JSON for any group name and base64', () => {
		fc.assert(
			fc.property(fc.string(), fc.uint8Array(), (group, bytes) => {
				const b64 = Buffer.from(bytes).toString('base64');
				expect(JSON.parse(groupMessage(group, b64))).toEqual({
					type: 'message',
					from: 'group',
					group,
					dataType: 'protobuf',
					data: b64
				});
			})
		);
		expect(JSON.parse(ackMessage(2, { name: 'Forbidden', message: 'no' }))).toEqual({
			type: 'ack',
			ackId: 2,
			success: false,
			error: { name: 'Forbidden', message: 'no' }
		});
	});
});
