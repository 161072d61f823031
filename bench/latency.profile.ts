/**
 * `--profile` of the latency bench: one tab's renderer, profiled with Chromium's CPU profiler
 * (CDP Profiler) over the measured window, summed by function: where a tab's CPU per tick goes
 * (the page's handler, Svelte's flush, style and layout are the renderer's own entries).
 */
import type { Page } from 'playwright';

interface ProfileNode {
	id: number;
	callFrame: { functionName: string; url: string; lineNumber: number };
	children?: number[];
}
interface Profile {
	nodes: ProfileNode[];
	samples: number[];
	timeDeltas: number[];
}

/** Starts profiling `page`; the returned stop gives the top `top` functions by self time. */
export async function profilePage(
	page: Page,
	top = 15
): Promise<() => Promise<{ totalMs: number; rows: { name: string; selfMs: number }[] }>> {
	const cdp = await page.context().newCDPSession(page);
	await cdp.send('Profiler.enable');
	await cdp.send('Profiler.setSamplingInterval', { interval: 200 });
	await cdp.send('Profiler.start');
	return async () => {
		const { profile } = (await cdp.send('Profiler.stop')) as unknown as { profile: Profile };
		await cdp.detach();
		const byId = new Map(profile.nodes.map((n) => [n.id, n]));
		const self = new Map<string, number>();
		let totalMs = 0;
		profile.samples.forEach((id, i) => {
			const node = byId.get(id)!;
			const { functionName, url, lineNumber } = node.callFrame;
			// (program) is the renderer's native work: style, layout, paint records.
			if (functionName === '(idle)') return;
			const ms = (profile.timeDeltas[i] ?? 0) / 1000;
			const file = url.split('/').pop() ?? '';
			const name = `${functionName || '(anonymous)'} ${file}${file ? `:${lineNumber + 1}` : ''}`;
			self.set(name, (self.get(name) ?? 0) + ms);
			totalMs += ms;
		});
		const rows = [...self]
			.map(([name, selfMs]) => ({ name, selfMs }))
			.sort((a, b) => b.selfMs - a.selfMs)
			.slice(0, top);
		return { totalMs, rows };
	};
}
