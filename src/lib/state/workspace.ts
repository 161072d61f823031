/**
 * A workspace (/workspace): a grid of panels, each a view of one ticker and category, and the
 * colour groups that link them. A panel's ticker, day and replayed moment are its group's: a
 * ticker change in one panel changes every panel of the group, and a group's day and moment
 * (`day`, `at`, as every time-aware view's link) move all of them. The whole workspace lives in
 * its URL (`?p=` one per panel, `?g=` one per group) so Copy link reopens it. Pure: the page
 * applies these functions and writes the result back to the URL.
 */
import { GEX_CATEGORIES, REST_CATEGORIES } from '$lib/contract/categories';
import { isCalendarDate } from '$lib/contract/dates';
import { isResearchMetric } from '$lib/contract/research';
import { isStreamTicker } from '$lib/contract/tickers';
import { parseTicker, ViewStateError } from './viewState';

/** The views a panel can show: every view, the same component as its page. */
export const PANEL_VIEWS = [
	'classic',
	'heatmap',
	'price',
	'state',
	'orderflow',
	'levels',
	'research',
	'watchlist'
] as const;
export type PanelView = (typeof PANEL_VIEWS)[number];

/** The views that show a day and a replayed moment: they follow their group's `day` and `at`. */
export const TIMED_VIEWS: readonly PanelView[] = [
	'classic',
	'heatmap',
	'price',
	'orderflow',
	'levels'
];

/**
 * A panel's `category` is its view's one choice besides the ticker: the GEX category (Classic,
 * heatmap, price), the State category, the research metric, the watchlist's tickers
 * (comma-separated; the watchlist does not follow the group's ticker), or '-' for views without
 * one (Orderflow, levels).
 */
export const PANEL_DEFAULTS: Readonly<Record<PanelView, string>> = {
	classic: 'gex_full',
	heatmap: 'gex_full',
	price: 'gex_full',
	state: 'gex_full',
	orderflow: '-',
	levels: '-',
	research: 'iv_mid',
	watchlist: 'SPX,NDX,RUT,SPY,QQQ'
};

/** The categories offered in a panel's category menu (research and the watchlist have their own). */
export function panelCategories(view: PanelView): readonly string[] {
	if (view === 'state') return REST_CATEGORIES.state;
	if (view === 'classic' || view === 'heatmap' || view === 'price') return GEX_CATEGORIES;
	return [];
}

function validCategory(view: PanelView, category: string): boolean {
	if (view === 'research') return isResearchMetric(category);
	if (view === 'orderflow' || view === 'levels') return category === '-';
	if (view === 'watchlist') {
		// (Over the watchlist's limit, the view shows the first ones and names the rest.)
		const list = category.split(',');
		return new Set(list).size === list.length && list.every((t) => isStreamTicker(t));
	}
	return panelCategories(view).includes(category);
}

export const GROUP_COLOURS = ['red', 'blue', 'green', 'amber', 'violet', 'teal'] as const;
export type GroupColour = (typeof GROUP_COLOURS)[number];

/** The grid is GRID_COLUMNS wide; a panel spans 1..GRID_COLUMNS columns and 1..MAX_ROWS rows. */
export const GRID_COLUMNS = 6;
export const MAX_ROWS = 3;

export interface Panel {
	view: PanelView;
	/** The view's category, metric or ticker list (PANEL_DEFAULTS). */
	category: string;
	group: GroupColour;
	/** Columns spanned. */
	w: number;
	/** Rows spanned. */
	h: number;
}

export interface Group {
	ticker: string;
	/** The past ET day; null = the latest (the feed). */
	day: string | null;
	/** The replayed moment (unix s); null = the live edge (or a past day's end). */
	at: number | null;
}

export interface Workspace {
	panels: Panel[];
	groups: Partial<Record<GroupColour, Group>>;
}

const clamp = (n: number, lo: number, hi: number) => Math.min(hi, Math.max(lo, n));

function isColour(s: string): s is GroupColour {
	return (GROUP_COLOURS as readonly string[]).includes(s);
}

/** `classic.gex_full.red.3x1` */
function panelParam(p: Panel): string {
	return `${p.view}.${p.category}.${p.group}.${p.w}x${p.h}`;
}

/** `red.SPX` or `red.SPX.2026-11-20.1763652000` (the moment may be absent: `red.SPX.2026-11-20`). */
function groupParam(colour: GroupColour, g: Group): string {
	const parts = [colour, g.ticker];
	if (g.day || g.at !== null) parts.push(g.day ?? '');
	if (g.at !== null) parts.push(String(Math.round(g.at)));
	return parts.join('.');
}

/** The workspace's query (without `?`); only the groups some panel uses are written. */
export function workspaceQuery(ws: Workspace): string {
	const q = new URLSearchParams();
	for (const p of ws.panels) q.append('p', panelParam(p));
	for (const c of GROUP_COLOURS) {
		const g = ws.groups[c];
		if (g && ws.panels.some((p) => p.group === c)) q.append('g', groupParam(c, g));
	}
	// A watchlist's commas stay readable in the link.
	return q.toString().replaceAll('%2C', ',');
}

function parsePanel(raw: string): Panel {
	const [view, category, group, size = '3x1'] = raw.split('.');
	if (!(PANEL_VIEWS as readonly string[]).includes(view)) {
		throw new ViewStateError(`unknown panel view '${view}'`);
	}
	if (!validCategory(view as PanelView, category)) {
		throw new ViewStateError(`unknown ${view} panel category '${category}'`);
	}
	if (!isColour(group)) throw new ViewStateError(`unknown group colour '${group}'`);
	const m = /^(\d)x(\d)$/.exec(size);
	if (!m) throw new ViewStateError(`panel size must be <columns>x<rows>, got '${size}'`);
	return {
		view: view as PanelView,
		category,
		group,
		w: clamp(Number(m[1]), 1, GRID_COLUMNS),
		h: clamp(Number(m[2]), 1, MAX_ROWS)
	};
}

function parseGroup(raw: string): [GroupColour, Group] {
	const [colour, ticker = '', day = '', at = ''] = raw.split('.');
	if (!isColour(colour)) throw new ViewStateError(`unknown group colour '${colour}'`);
	if (day && !isCalendarDate(day)) throw new ViewStateError(`day must be YYYY-MM-DD, got '${day}'`);
	const moment = at === '' ? null : Number(at);
	if (moment !== null && !(Number.isInteger(moment) && moment > 0)) {
		throw new ViewStateError(`at must be a moment in unix seconds, got '${at}'`);
	}
	return [colour, { ticker: parseTicker(ticker), day: day || null, at: moment }];
}

/** The workspace a URL's query describes; a malformed part is a ViewStateError naming it. */
export function parseWorkspace(search: URLSearchParams): Workspace {
	const panels = search.getAll('p').map(parsePanel);
	const groups: Workspace['groups'] = {};
	for (const raw of search.getAll('g')) {
		const [c, g] = parseGroup(raw);
		groups[c] = g;
	}
	// A panel whose group the link does not describe watches SPX, live.
	for (const p of panels) groups[p.group] ??= { ticker: 'SPX', day: null, at: null };
	return { panels, groups };
}

/** The group a panel belongs to. */
export function groupOf(ws: Workspace, index: number): Group {
	return ws.groups[ws.panels[index].group] ?? { ticker: 'SPX', day: null, at: null };
}

/** A new panel in a group of its own (the first colour no panel uses, else the last one's). */
export function addPanel(ws: Workspace, ticker = 'SPX'): Workspace {
	const free = GROUP_COLOURS.find((c) => !ws.panels.some((p) => p.group === c));
	const group = free ?? ws.panels[ws.panels.length - 1].group;
	const panel: Panel = { view: 'classic', category: 'gex_full', group, w: 3, h: 1 };
	const groups = free ? { ...ws.groups, [free]: { ticker, day: null, at: null } } : ws.groups;
	return { panels: [...ws.panels, panel], groups };
}

export function removePanel(ws: Workspace, index: number): Workspace {
	return { ...ws, panels: ws.panels.filter((_, i) => i !== index) };
}

/** The panel moved `by` places (negative = earlier), kept within the grid. */
export function movePanel(ws: Workspace, index: number, by: number): Workspace {
	const to = clamp(index + by, 0, ws.panels.length - 1);
	if (to === index) return ws;
	const panels = [...ws.panels];
	const [p] = panels.splice(index, 1);
	panels.splice(to, 0, p);
	return { ...ws, panels };
}

/** The panel resized by `dw` columns and `dh` rows, kept within the grid. */
export function resizePanel(ws: Workspace, index: number, dw: number, dh: number): Workspace {
	return updatePanel(ws, index, {
		w: clamp(ws.panels[index].w + dw, 1, GRID_COLUMNS),
		h: clamp(ws.panels[index].h + dh, 1, MAX_ROWS)
	});
}

/** The panel shows another view (its category becomes that view's default). */
export function changeView(ws: Workspace, index: number, view: PanelView): Workspace {
	return updatePanel(ws, index, { view, category: PANEL_DEFAULTS[view] });
}

export function updatePanel(ws: Workspace, index: number, next: Partial<Panel>): Workspace {
	return { ...ws, panels: ws.panels.map((p, i) => (i === index ? { ...p, ...next } : p)) };
}

/** The panel joins another group (it takes that group's ticker, day and moment). */
export function joinGroup(ws: Workspace, index: number, colour: GroupColour): Workspace {
	const mine = groupOf(ws, index);
	const groups = ws.groups[colour] ? ws.groups : { ...ws.groups, [colour]: { ...mine } };
	return { panels: updatePanel(ws, index, { group: colour }).panels, groups };
}

/** A change of a group's ticker, day or moment: every panel of the group follows. */
export function updateGroup(ws: Workspace, colour: GroupColour, next: Partial<Group>): Workspace {
	const g = ws.groups[colour] ?? { ticker: 'SPX', day: null, at: null };
	return { ...ws, groups: { ...ws.groups, [colour]: { ...g, ...next } } };
}

/** The starter layouts offered beside the saved ones. */
export const STARTER_LAYOUTS: Readonly<Record<string, string>> = {
	// SPX, NDX and SPY side by side: each one's histogram over its heatmap.
	'Index trio':
		'p=classic.gex_full.red.2x1&p=classic.gex_full.blue.2x1&p=classic.gex_full.green.2x1' +
		'&p=heatmap.gex_full.red.2x1&p=heatmap.gex_full.blue.2x1&p=heatmap.gex_full.green.2x1' +
		'&g=red.SPX&g=blue.NDX&g=green.SPY',
	// One ticker, every angle: histogram, heatmap, State, Orderflow, levels and the price chart.
	'One ticker in depth':
		'p=classic.gex_full.red.3x1&p=heatmap.gex_full.red.3x1&p=state.gex_zero.red.2x1' +
		'&p=orderflow.-.red.2x1&p=levels.-.red.2x1&p=price.gex_full.red.6x1&g=red.SPX',
	// One group of the four replayed views: a scrub, play or step in one moves them all.
	'Replay desk':
		'p=classic.gex_full.red.3x1&p=heatmap.gex_full.red.3x1&p=orderflow.-.red.3x1' +
		'&p=levels.-.red.3x1&g=red.SPX'
};

/** An empty /workspace opens three Classic panels, SPX, NDX and SPY (the lightest start). */
export const DEFAULT_LAYOUT =
	'p=classic.gex_full.red.2x1&p=classic.gex_full.blue.2x1&p=classic.gex_full.green.2x1&g=red.SPX&g=blue.NDX&g=green.SPY';
