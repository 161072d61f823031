import { describe, expect, it } from 'vitest';
import {
	addPanel,
	changeView,
	DEFAULT_LAYOUT,
	groupOf,
	joinGroup,
	movePanel,
	PANEL_DEFAULTS,
	PANEL_VIEWS,
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

	it('every starter layout parses and round trips, and they use the other views', () => {
		for (const [name, q] of Object.entries(STARTER_LAYOUTS)) {
			expect(workspaceQuery(parse(q)), name).toBe(q);
		}
		expect(parse(DEFAULT_LAYOUT).panels).toHaveLength(3);
		const views = (name: string) => parse(STARTER_LAYOUTS[name]).panels.map((p) => p.view);
		expect(views('Index trio')).toEqual([...Array(3).fill('classic'), ...Array(3).fill('heatmap')]);
		expect(new Set(views('One ticker in depth')).size).toBe(6);
		// The replay desk: the four replayed views in one group.
		expect(views('Replay desk')).toEqual(['classic', 'heatmap', 'orderflow', 'levels']);
		expect(new Set(parse(STARTER_LAYOUTS['Replay desk']).panels.map((p) => p.group)).size).toBe(1);
	});

	it('carries every view, each with its own kind of category', () => {
		const q =
			'p=heatmap.gex_zero.red.3x1&p=price.gex_one.red.3x1&p=state.vanna_zero.red.2x1' +
			'&p=orderflow.-.red.2x1&p=levels.-.red.2x1&p=research.gex_oi.blue.3x1' +
			'&p=watchlist.SPX,NDX,ES_SPX.green.3x1&g=red.SPX.2026-11-20.1763652000&g=blue.NDX&g=green.SPX';
		const ws = parse(q);
		expect(ws.panels.map((p) => `${p.view}:${p.category}`)).toEqual([
			'heatmap:gex_zero',
			'price:gex_one',
			'state:vanna_zero',
			'orderflow:-',
			'levels:-',
			'research:gex_oi',
			'watchlist:SPX,NDX,ES_SPX'
		]);
		expect(workspaceQuery(ws)).toBe(q);
		// Each view's default is one its own parser takes.
		for (const view of PANEL_VIEWS) {
			const one = parse(`p=${view}.${PANEL_DEFAULTS[view]}.red.1x1`);
			expect(workspaceQuery(one)).toContain(`p=${view}.${PANEL_DEFAULTS[view]}.red`);
		}
	});

	it("a category belongs to its view: another view's is refused", () => {
		expect(() => parse('p=heatmap.vanna_zero.red.1x1')).toThrow(/heatmap panel category/);
		expect(() => parse('p=orderflow.gex_full.red.1x1')).toThrow(/orderflow panel category/);
		expect(() => parse('p=research.nope.red.1x1')).toThrow(/research panel category/);
		expect(() => parse('p=watchlist.SPX,SPX.red.1x1')).toThrow(/watchlist panel category/);
		expect(() => parse('p=watchlist.SPX,NOPE!.red.1x1')).toThrow(/watchlist panel category/);
		expect(parse('p=state.vanna_zero.red.1x1').panels[0].category).toBe('vanna_zero');
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
			...Array(6).fill('NDX'),
			'SPY'
		]);
		expect(groupOf(next, 1).at).toBe(1763652000);
		expect(groupOf(next, 6).at).toBeNull();
	});

	it('joining a group takes its ticker and time; a new panel gets a colour of its own', () => {
		const pair = parse(DEFAULT_LAYOUT);
		const joined = joinGroup(pair, 2, 'red');
		expect(groupOf(joined, 2).ticker).toBe('SPX');
		const added = addPanel(joined);
		expect(added.panels[3].group).toBe('green');
		expect(workspaceQuery(removePanel(added, 3))).not.toContain('g=green');
	});

	it('another view takes its own default category and keeps the group', () => {
		const flow = changeView(trio, 1, 'orderflow');
		expect(flow.panels[1]).toMatchObject({ view: 'orderflow', category: '-', group: 'blue' });
		const research = changeView(flow, 1, 'research');
		expect(research.panels[1].category).toBe('iv_mid');
		expect(parse(workspaceQuery(research)).panels[1]).toEqual(research.panels[1]);
	});

	it('moves and resizes within the grid', () => {
		const moved = movePanel(trio, 0, 2);
		expect(moved.panels.map((p) => p.group).slice(0, 3)).toEqual(['blue', 'green', 'red']);
		expect(movePanel(trio, 0, -1)).toBe(trio);
		const r = resizePanel(trio, 1, 10, -4);
		expect(r.panels[1]).toMatchObject({ w: 6, h: 1 });
		expect(resizePanel(trio, 1, 1, 1).panels[1]).toMatchObject({ w: 3, h: 2 });
	});
});
