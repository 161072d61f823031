/**
 * Streaming or REST polling, and why: what the page shows and which data path it uses, from
 * the relay's status and the worker's connection. Streaming needs the Quant tier and the
 * account's WebSocket slot; otherwise the Classic view polls REST as before.
 */
import type { ConnectionState } from './messages';
import type { StatusMessage } from '../../relay/protocol';

export interface FeedMode {
	mode: 'stream' | 'polling';
	/** One sentence for the mode badge. */
	reason: string;
	/** The user can act: take the slot back. */
	canTakeBack: boolean;
}

export function feedMode(
	status: StatusMessage | undefined,
	connection: ConnectionState | undefined
): FeedMode {
	const polling = (reason: string, canTakeBack = false): FeedMode => ({
		mode: 'polling',
		reason,
		canTakeBack
	});
	if (connection !== 'open' || !status) {
		return polling(
			connection === 'closed'
				? 'The live stream is disconnected; polling REST until it is back.'
				: 'Connecting to the live stream…'
		);
	}
	switch (status.state) {
		case 'live':
		case 'negotiating':
		case 'idle':
			return {
				mode: 'stream',
				reason: `Streaming through the dashboard's WebSocket slot (${status.usage.used} of ${status.usage.limit} memberships).`,
				canTakeBack: false
			};
		case 'standby':
			return {
				mode: 'stream',
				reason: `Streaming through the cluster's slot holder (${status.usage.used} of ${status.usage.limit} memberships on this replica).`,
				canTakeBack: false
			};
		case 'reconnecting':
			return polling(
				`The upstream stream is reconnecting; polling REST meanwhile. ${status.reason ?? ''}`.trim()
			);
		case 'slot-taken':
			return polling(
				'Another program using this account took the WebSocket slot; polling REST. Take it back to stream again.',
				true
			);
		case 'error':
			return polling(
				/quant/i.test(status.reason ?? '')
					? 'Streaming needs the Quant tier; polling REST.'
					: `Streaming is unavailable (${status.reason ?? 'upstream refused'}); polling REST.`
			);
		case 'closed':
			return polling('The dashboard server stopped streaming; polling REST.');
	}
}
