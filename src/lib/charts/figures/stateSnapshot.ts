/**
 * One State snapshot, whichever category the view shows: a GEX chain (state/gex_*) or a greek
 * profile (state/<greek>_<zero|one>). The State page keeps one feed and one poller across
 * category switches, so both the REST parser and the stream shape return this union.
 */
import { isGexCategory } from '../../contract/categories';
import type { StreamUpdate } from '../../stream/transport/updates';
import type { StateCategory } from '../../state/stateView';
import type { ColumnarGex, ColumnarGreekProfile } from '../../wire/columnar';
import { parseGexColumns } from '../histogram/classicChain';
import { parseGreekColumns } from '../greekLadder/greekLadder';

export type StateSnapshot =
	{ kind: 'gex'; chain: ColumnarGex } | { kind: 'greek'; profile: ColumnarGreekProfile };

/** The REST parser of a category's snapshot (throws SchemaError on a malformed body). */
export function stateSnapshotParser(category: StateCategory): (value: unknown) => StateSnapshot {
	return isGexCategory(category)
		? (v) => ({ kind: 'gex', chain: parseGexColumns(v) })
		: (v) => ({ kind: 'greek', profile: parseGreekColumns(v) });
}

/** StreamFeed `shape` of a state group: GEX and greek frames; other kinds are not State data. */
export function stateSnapshotUpdate(u: StreamUpdate): StateSnapshot | undefined {
	if (u.kind === 'gex') return { kind: 'gex', chain: u.value };
	if (u.kind === 'greek') return { kind: 'greek', profile: u.value };
	return undefined;
}

/**
 * What the IndexedDB cache keeps of a streamed snapshot, read back by the category's parser:
 * the columns as they are (parseGexColumns and parseGreekColumns take them back unchanged).
 */
export function restBody(s: StateSnapshot): ColumnarGex | ColumnarGreekProfile {
	return s.kind === 'gex' ? s.chain : s.profile;
}
