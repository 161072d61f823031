import { describe, expect, it } from 'vitest';
import { SchemaError } from '../../contract/validate';
import { columnarGex, columnarGreekProfile } from '../../wire/columnar';
import type { ClassicChain } from '../histogram/classicChain';
import type { GreekProfile } from '../greekLadder/greekLadder';
import { restBody, stateSnapshotParser, stateSnapshotUpdate } from './stateSnapshot';

const CHAIN: ClassicChain = {
	timestamp: 1795444720,
	ticker: 'SPX',
	min_dte: 0,
	sec_min_dte: 1,
	spot: 7369.26,
	zero_gamma: 7430.63,
	major_pos_vol: 7435,
	major_pos_oi: 7450,
	major_neg_vol: 7375,
	major_neg_oi: 7400,
	strikes: [
		[7365, -120.5, -30.25, [-110, -90, -80, -70, -60]],
		[7370, 15.5, 2.25, [14, 13, 12, 11, 10]]
	],
	sum_gex_vol: -4750.5,
	sum_gex_oi: -28300.25,
	delta_risk_reversal: -0.037,
	max_priors: [
		[7345, 10.7],
		[7365, -50.3],
		[7395, -168],
		[7385, -281],
		[7375, -537],
		[7375, -537]
	]
};

const PROFILE: GreekProfile = {
	timestamp: 1795444720,
	ticker: 'SPX',
	spot: 7369.26,
	min_dte: 0,
	sec_min_dte: 1,
	major_positive: 7340,
	major_negative: 7425,
	major_long_gamma: 7340,
	major_short_gamma: 7375,
	mini_contracts: [[7375, 0.1193, 0.1193, 53.46, [54.85, 53.68], -268.92, [-200.48, -34.28]]]
};

describe('state snapshots', () => {
	it('parses each category with its own schema and refuses the other shape', () => {
		expect(stateSnapshotParser('gex_one')(CHAIN)).toEqual({
			kind: 'gex',
			chain: columnarGex(CHAIN)
		});
		expect(stateSnapshotParser('vanna_one')(PROFILE)).toEqual({
			kind: 'greek',
			profile: columnarGreekProfile(PROFILE)
		});
		expect(() => stateSnapshotParser('gamma_zero')(CHAIN)).toThrow(SchemaError);
		expect(() => stateSnapshotParser('gex_full')(PROFILE)).toThrow(SchemaError);
	});

	it('shapes streamed GEX and greek frames, and ignores other kinds', () => {
		const base = { ticker: 'SPX', timestamp: CHAIN.timestamp };
		// The worker's columns as they arrived: no rows are built on the main thread.
		const columns = columnarGex(CHAIN);
		const gex = stateSnapshotUpdate({
			...base,
			kind: 'gex',
			group: 'SPX_state_gex_full',
			value: columns
		});
		expect(gex).toEqual({ kind: 'gex', chain: columns });
		expect((gex as { chain: unknown }).chain).toBe(columns);
		const profileColumns = columnarGreekProfile(PROFILE);
		const greek = stateSnapshotUpdate({
			...base,
			kind: 'greek',
			group: 'SPX_state_delta_zero',
			value: profileColumns
		});
		expect((greek as { profile: unknown }).profile).toBe(profileColumns);
		// The cache keeps the columns, which the category's parser reads back as they are.
		const kept = restBody(gex!);
		expect(kept).toBe(columns);
		expect(stateSnapshotParser('gex_full')(structuredClone(kept))).toEqual(gex);
		expect(restBody(greek!)).toBe(profileColumns);
		expect(stateSnapshotParser('delta_zero')(structuredClone(profileColumns))).toEqual(greek);
		expect(
			stateSnapshotUpdate({ ...base, kind: 'volume', group: 'SPX_state_volume_zero', value: {} })
		).toBeUndefined();
	});
});
