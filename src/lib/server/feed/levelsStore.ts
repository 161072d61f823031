/**
 * The latest Classic chain of every (ticker, gex category) the dashboard receives, from the
 * update tap: stream frames (relay) and polled snapshots (proxy) alike. Updates are kept raw and
 * decoded only when a feed request reads them (once per update), so a frame nobody asks for
 * costs a map write.
 */
import { classicChainSchema, type ClassicChain } from '../../contract/schemas';
import { safeParse } from '../../contract/validate';
import { decodeFrame } from '../../wire/decode';
import { streamOfGroup } from '../recorder/sessionRecorder';
import type { ReceivedUpdate, UpdateTap } from '../updates/tap';

const CLASSIC = /^classic_(gex_full|gex_zero|gex_one)$/;

interface Held {
	update: ReceivedUpdate;
	decoded?: ClassicChain | null;
}

export interface LatestChain {
	chain: ClassicChain;
	receivedAt: number;
	source: 'stream' | 'poll';
}

export class LevelsStore {
	private readonly latest = new Map<string, Held>();
	private readonly unsubscribe: () => void;

	constructor(tap: UpdateTap) {
		this.unsubscribe = tap.subscribe((u) => this.take(u));
	}

	private take(update: ReceivedUpdate): void {
		let key: string;
		if (update.source === 'stream') {
			const s = streamOfGroup(update.group);
			if (!s || !CLASSIC.test(s.stream)) return;
			key = `${s.ticker}|${s.stream.slice(8)}`;
		} else {
			if (!CLASSIC.test(update.stream)) return;
			key = `${update.ticker}|${update.stream.slice(8)}`;
		}
		this.latest.set(key, { update });
	}

	/** The newest chain received for (ticker, category), or undefined. */
	get(ticker: string, category: string): LatestChain | undefined {
		const held = this.latest.get(`${ticker}|${category}`);
		if (!held) return undefined;
		if (held.decoded === undefined) held.decoded = decode(held.update);
		if (!held.decoded) return undefined;
		return {
			chain: held.decoded,
			receivedAt: held.update.receivedAt,
			source: held.update.source === 'stream' ? 'stream' : 'poll'
		};
	}

	/** (ticker, category, receivedAt) of everything held, for the /integrations page. */
	entries(): { ticker: string; category: string; receivedAt: number }[] {
		return [...this.latest].map(([key, h]) => {
			const [ticker, category] = key.split('|');
			return { ticker, category, receivedAt: h.update.receivedAt };
		});
	}

	close(): void {
		this.unsubscribe();
	}
}

function decode(update: ReceivedUpdate): ClassicChain | null {
	try {
		if (update.source === 'stream') {
			const frame = decodeFrame(update.any);
			return frame.kind === 'gex' ? frame.value : null;
		}
		const r = safeParse(classicChainSchema, JSON.parse(update.json));
		return r.ok ? r.value : null;
	} catch {
		return null;
	}
}
