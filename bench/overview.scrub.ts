/**
 * The overview bench's Classic scrub (bench/overview.bench.ts), in its own file to keep the
 * bench's under the size limit.
 */
import type { Page } from '@playwright/test';

/**
 * Classic's scrub, in the page: the slider set to 10 moments across the day (an input event,
 * as a drag makes), each to the first animation frame whose histogram is of that moment (its
 * figures' data time within 10 s of the slider's share of the day).
 */
export async function classicScrubs(page: Page, open: number, last: number): Promise<number[]> {
	return page.evaluate(
		async ({ open, last }) => {
			const slider = document.querySelector<HTMLInputElement>('[data-testid=replay-slider]')!;
			const max = Number(slider.max);
			const out: number[] = [];
			for (let i = 0; i < 10; i++) {
				const pos = Math.round(((i + 0.37) / 10) * max);
				const want = open + (pos / max) * (last - open);
				const t = performance.now();
				slider.value = String(pos);
				slider.dispatchEvent(new Event('input', { bubbles: true }));
				for (;;) {
					// (No named helper here: tsx would wrap it in a __name the page lacks.)
					await new Promise((r) => requestAnimationFrame(r));
					const shown = Number(
						document.querySelector('[data-testid=timestamp]')?.getAttribute('data-unix')
					);
					if (Math.abs(shown - want) <= 10 && document.querySelector('[data-testid=histogram]'))
						break;
					if (performance.now() - t > 10_000) throw new Error(`scrub to ${want} not drawn`);
				}
				out.push(performance.now() - t);
			}
			return out;
		},
		{ open, last }
	);
}
