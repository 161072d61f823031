/**
 * Capture of the workspace, drawn from the panels' own canvases and SVGs (no screenshot
 * service): one PNG of the whole grid, or a zip of one PNG per panel with a manifest of each
 * panel's ticker, view, category and data time. An SVG is drawn through an image of its markup
 * with the computed styles written into it (its classes and CSS variables do not travel); a
 * canvas is copied as it is; each panel's caption (ticker, view, data time) is written on top.
 */
import { strToU8, zipSync } from 'fflate';

export interface CapturedPanel {
	ticker: string;
	view: string;
	category: string;
	group: string;
	/** The data time the panel shows (unix s), or null while it shows none. */
	dataTime: number | null;
}

const STYLE_PROPS = [
	'fill',
	'fill-opacity',
	'stroke',
	'stroke-width',
	'stroke-dasharray',
	'stroke-opacity',
	'opacity',
	'font-size',
	'font-family',
	'font-weight',
	'text-anchor',
	'dominant-baseline',
	'visibility',
	'display'
];

function svgImage(svg: SVGSVGElement, w: number, h: number): Promise<HTMLImageElement> {
	const clone = svg.cloneNode(true) as SVGSVGElement;
	const from = [svg, ...svg.querySelectorAll('*')];
	const to = [clone, ...clone.querySelectorAll('*')];
	from.forEach((el, i) => {
		const cs = getComputedStyle(el);
		const css = STYLE_PROPS.map((p) => `${p}:${cs.getPropertyValue(p)}`).join(';');
		(to[i] as SVGElement).setAttribute('style', css);
	});
	clone.setAttribute('xmlns', 'http://www.w3.org/2000/svg');
	clone.setAttribute('width', String(w));
	clone.setAttribute('height', String(h));
	const markup = new XMLSerializer().serializeToString(clone);
	const img = new Image();
	return new Promise((resolve, reject) => {
		img.onload = () => resolve(img);
		img.onerror = () => reject(new Error('an SVG could not be drawn'));
		img.src = `data:image/svg+xml;charset=utf-8,${encodeURIComponent(markup)}`;
	});
}

/**
 * Where a view says the time of its data (unix s in `data-unix`), most telling first: the data
 * time a view prints (Classic, State, Orderflow, levels), the freshness badge of a live view
 * (heatmap, price), the last column of a drawn day.
 */
const DATA_TIME = ['[data-testid="timestamp"][data-unix]', '[data-testid="freshness"][data-unix]'];

/** The describing attributes of a panel element (WorkspacePanel.svelte writes them). */
export function describePanel(panel: HTMLElement): CapturedPanel {
	const ts = [...DATA_TIME, '[data-unix]']
		.map((q) => panel.querySelector<HTMLElement>(q)?.dataset.unix)
		.find((v) => v !== undefined && v !== '');
	return {
		ticker: panel.dataset.ticker ?? '',
		view: panel.dataset.view ?? 'classic',
		category: panel.dataset.category ?? '',
		group: panel.dataset.group ?? '',
		dataTime: ts ? Number(ts) : null
	};
}

function caption(p: CapturedPanel): string {
	const time = p.dataTime === null ? 'no data' : new Date(p.dataTime * 1000).toISOString();
	return `${p.ticker} ${p.view} ${p.category} · data time ${time}`;
}

/** Draws `panel` onto `ctx` with its top left at (x, y) in CSS pixels. */
async function drawPanel(ctx: CanvasRenderingContext2D, panel: HTMLElement, x: number, y: number) {
	const box = panel.getBoundingClientRect();
	const bg = getComputedStyle(panel).backgroundColor;
	ctx.fillStyle =
		bg && bg !== 'rgba(0, 0, 0, 0)' ? bg : getComputedStyle(document.body).backgroundColor;
	ctx.fillRect(x, y, box.width, box.height);
	// What the panel shows: its scrolled-away parts stay out (and out of the neighbours).
	ctx.save();
	ctx.beginPath();
	ctx.rect(x, y, box.width, box.height);
	ctx.clip();
	for (const el of panel.querySelectorAll<SVGSVGElement | HTMLCanvasElement>('svg, canvas')) {
		if (el instanceof SVGSVGElement && el.parentElement?.closest('svg')) continue;
		const r = el.getBoundingClientRect();
		if (r.width < 1 || r.height < 1) continue;
		const dx = x + r.left - box.left;
		const dy = y + r.top - box.top;
		if (el instanceof HTMLCanvasElement) ctx.drawImage(el, dx, dy, r.width, r.height);
		else ctx.drawImage(await svgImage(el, r.width, r.height), dx, dy, r.width, r.height);
	}
	ctx.restore();
	ctx.fillStyle = getComputedStyle(document.body).color;
	ctx.font = '12px sans-serif';
	ctx.fillText(caption(describePanel(panel)), x + 6, y + 14);
}

function canvasOf(w: number, h: number, scale: number) {
	const canvas = document.createElement('canvas');
	canvas.width = Math.round(w * scale);
	canvas.height = Math.round(h * scale);
	const ctx = canvas.getContext('2d');
	if (!ctx) throw new Error('no 2D canvas in this browser');
	ctx.scale(scale, scale);
	return { canvas, ctx };
}

function pngBlob(canvas: HTMLCanvasElement): Promise<Blob> {
	return new Promise((resolve, reject) =>
		canvas.toBlob((b) => (b ? resolve(b) : reject(new Error('PNG encoding failed'))), 'image/png')
	);
}

/** The whole grid as one PNG, at the screen's pixel ratio. */
export async function captureGrid(grid: HTMLElement, panels: HTMLElement[]): Promise<Blob> {
	const box = grid.getBoundingClientRect();
	const { canvas, ctx } = canvasOf(box.width, box.height, devicePixelRatio);
	ctx.fillStyle = getComputedStyle(document.body).backgroundColor;
	ctx.fillRect(0, 0, box.width, box.height);
	for (const p of panels) {
		const r = p.getBoundingClientRect();
		await drawPanel(ctx, p, r.left - box.left, r.top - box.top);
	}
	return pngBlob(canvas);
}

/** One PNG per panel and `manifest.json` (each file's ticker, view, category, group, data time). */
export async function capturePanelsZip(panels: HTMLElement[]): Promise<Blob> {
	const files: Record<string, Uint8Array> = {};
	const manifest: (CapturedPanel & { file: string })[] = [];
	for (const [i, p] of panels.entries()) {
		const r = p.getBoundingClientRect();
		const { canvas, ctx } = canvasOf(r.width, r.height, devicePixelRatio);
		await drawPanel(ctx, p, 0, 0);
		const d = describePanel(p);
		const file = `panel-${i + 1}-${d.ticker}-${d.view}-${d.category}.png`;
		files[file] = new Uint8Array(await (await pngBlob(canvas)).arrayBuffer());
		manifest.push({ file, ...d });
	}
	files['manifest.json'] = strToU8(JSON.stringify({ panels: manifest }, null, 2));
	const zip = zipSync(files, { level: 0 });
	return new Blob([zip as Uint8Array<ArrayBuffer>], { type: 'application/zip' });
}

/** Offers `blob` as a download named `name`. */
export function download(blob: Blob, name: string) {
	const a = document.createElement('a');
	a.href = URL.createObjectURL(blob);
	a.download = name;
	a.click();
	setTimeout(() => URL.revokeObjectURL(a.href), 10_000);
}
