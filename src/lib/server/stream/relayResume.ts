/**
 * A reconnecting viewer's resume in cluster mode (see relay.ts): it had frames up to `after`;
 * the frames of its groups published since are replayed from the cluster's stream while live
 * ones wait (Viewer.beginResume), none is sent twice, and every place frames are missing is
 * said (trimmed from the stream, a hand-over of the slot, live frames past the wait's bound).
 * Without a cluster there is no history: the gap is reported.
 */
import type { RelayCluster } from './relayCluster';
import type { RelayFanOut } from './relayFanOut';
import type { Viewer } from './viewer';

export async function resumeViewer(
	viewer: Viewer,
	after: string,
	cluster: RelayCluster | undefined,
	fanOut: RelayFanOut
): Promise<void> {
	if (!cluster) {
		viewer.sendMessage({
			type: 'gap',
			reason: 'this dashboard keeps no frame history: frames since the disconnect are missing'
		});
		viewer.sendMessage({ type: 'resumed', after, replayed: 0 });
		return;
	}
	viewer.beginResume(after);
	let replayed = 0;
	try {
		const { frames, gap } = await cluster.replay(after);
		if (gap) {
			viewer.sendMessage({
				type: 'gap',
				reason: 'frames after the last one this page had are no longer kept'
			});
		}
		// Group frames in runs between gap markers; each marker is said where it sits.
		let from = 0;
		for (let i = 0; i <= frames.length; i++) {
			const marker = frames[i]?.gap;
			if (i < frames.length && marker === undefined) continue;
			replayed += fanOut.replay(viewer, frames.slice(from, i));
			if (marker !== undefined) {
				viewer.sendMessage({ type: 'gap', at: frames[i].id, reason: marker });
			}
			from = i + 1;
		}
	} catch (err) {
		viewer.sendMessage({
			type: 'gap',
			reason: `the missed frames could not be read (${(err as Error).message})`
		});
	}
	viewer.endResume();
	if (viewer.overflowed > 0) {
		viewer.sendMessage({
			type: 'gap',
			reason: `${viewer.overflowed} live frames arrived faster than the replay and were dropped`
		});
	}
	viewer.sendMessage({ type: 'resumed', after, replayed });
}
