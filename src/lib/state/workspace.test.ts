import { describe, expect, it } from 'vitest';
import {
	addPanel,
	DEFAULT_LAYOUT,
	groupOf,
	joinGroup,
	movePanel,
	parseWorkspace,
	removePanel,
	resizePanel,
	STARTER_LAYOUTS,
	updateGroup,
	workspaceQuery
} from './workspace';
import { ViewStateError } from './viewState';

const parse = (q: string) => parseWorkspace(new URLSearchParams(q));

describe('workspace link', () => {
	it('round trips panels, groups, a past day and a moment', () => {
		const q =
			'p=classic.gex_full.red.3x2&p=classic.gex_zero.blue.2x1&g=red.SPX.2026-11-20.1763652000&g=blue.NDX..1763652100';
		const ws = parse(q);
		expect(ws.panels).toEqual([
			{ view: 'classic', category: 'gex_full', group: 'red', w: 3, h: 2 },
			{ view: 'classic', category: 'gex_zero', group: 'blue', w: 2, h: 1 }
		]);
		expect(ws.groups.red).toEqual({ ticker: 'SPX', day: '2026-11-20', at: 1763652000 });
		expect(ws.groups.blue).toEqual({ ticker: 'NDX', day: null, at: 1763652100 });
		expect(workspaceQuery(ws)).toBe(q);
	});

	it('every starter layout parses and round trips', () => {
		for (const [name, q] of Object.entries(STARTER_LAYOUTS)) {
			expect(workspaceQuery(parse(q)), name).toBe(q);
		}
		expect(parse(DEFAULT_LAYOUT).panels).toHaveLength(3);
	});

	it('names the malformed part', () => {
		expect(() => parse('p=chart.gex_full.red.1x1')).toThrow(ViewStateError);
		expect(() => parse('p=classic.gex_full.pink.1x1')).toThrow(/colour 'pink'/);
		expect(() => parse('p=classic.gex_full.red.1x1&g=red.SPX.2026-13-45')).toThrow(/day/);
		expect(() => parse('p=classic.gex_full.red.1x1&g=red.SPX..-5')).toThrow(/at must/);
	});

	it('clamps sizes to the grid and gives an undescribed group SPX, live', () => {
		const ws = parse('p=classic.gex_one.teal.9x7');
		expect(ws.panels[0]).toMatchObject({ w: 6, h: 3 });
		expect(groupOf(ws, 0)).toEqual({ ticker: 'SPX', day: null, at: null });
	});
});

describe('workspace edits', () => {
	const trio = parse(STARTER_LAYOUTS['Index trio']);

	it('a group change reaches every panel of the group, and only those', () => {
		const desk = parse(STARTER_LAYOUTS['One ticker in depth']);
		const next = updateGroup(addPanel(desk, 'SPY'), 'red', { ticker: 'NDX', at: 1763652000 });
		expect(next.panels.map((_, i) => groupOf(next, i).ticker)).toEqual([
			'NDX',
			'NDX',
			'NDX',
			'SPY'
		]);
		expect(groupOf(next, 1).at).toBe(1763652000);
		expect(groupOf(next, 3).at).toBeNull();
	});

	it('joining a group takes its ticker and time; a new panel gets a colour of its own', () => {
		const joined = joinGroup(trio, 2, 'red');
		expect(groupOf(joined, 2).ticker).toBe('SPX');
		const added = addPanel(joined);
		expect(added.panels[3].group).toBe('green');
		expect(workspaceQuery(removePanel(added, 3))).not.toContain('g=green');
	});

	it('moves and resizes within the grid', () => {
		const moved = movePanel(trio, 0, 5);
		expect(moved.panels.map((p) => p.group)).toEqual(['blue', 'green', 'red']);
		expect(movePanel(trio, 0, -1)).toBe(trio);
		const r = resizePanel(trio, 1, 10, -4);
		expect(r.panels[1]).toMatchObject({ w: 6, h: 1 });
		expect(resizePanel(trio, 1, 1, 1).panels[1]).toMatchObject({ w: 3, h: 2 });
	});
});
