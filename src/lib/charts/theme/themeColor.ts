/**
 * A theme colour (app.css's custom properties) as the page shows it now, for code that paints
 * with it (canvas, WebGL): the property's raw value is a light-dark() pair that only the
 * page's color-scheme resolves, so a hidden probe takes the colour and the browser computes it
 * (`rgb(…)`). `fallback` outside a browser or when the property is missing.
 */
export function themeColor(name: string, fallback: string): string {
	if (typeof document === 'undefined' || !document.body) return fallback;
	const probe = document.createElement('span');
	probe.style.display = 'none';
	probe.style.color = `var(${name}, ${fallback})`;
	document.body.append(probe);
	const colour = getComputedStyle(probe).color;
	probe.remove();
	return colour || fallback;
}
