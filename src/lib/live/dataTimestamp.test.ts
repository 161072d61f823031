import { describe, expect, it } from 'vitest';
import { dataTimestamp } from './dataTimestamp';

describe('dataTimestamp', () => {
	it('reads a chain, an orderflow body and a State snapshot of either kind', () => {
		expect(dataTimestamp({ timestamp: 5 })).toBe(5);
		expect(dataTimestamp({ kind: 'gex', chain: { timestamp: 6 } })).toBe(6);
		expect(dataTimestamp({ kind: 'greek', profile: { timestamp: 7 } })).toBe(7);
		expect(dataTimestamp(undefined)).toBeUndefined();
		expect(dataTimestamp({ timestamp: '5' })).toBeUndefined();
	});
});
