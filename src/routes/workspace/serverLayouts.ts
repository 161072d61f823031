/**
 * The signed-in user's workspace layouts on the server (/workspace/layouts; the server keeps each
 * user's own): list, save and delete, for the layout menu beside the browser's IndexedDB ones.
 * State-changing calls carry the CSRF double-submit header. A refusal's message (a bound, a name)
 * is the server's, said as it is.
 */
import { appHref } from '$lib/state/links';

export interface ServerLayout {
	name: string;
	query: string;
	updatedAt: number;
}

async function answer<T>(res: Response): Promise<T> {
	const body = (await res.json().catch(() => ({}))) as T & { error?: string };
	if (!res.ok) throw new Error(body.error ?? `the server answered ${res.status}`);
	return body;
}

export async function listServerLayouts(): Promise<ServerLayout[]> {
	const res = await fetch(appHref('/workspace/layouts'), { cache: 'no-store' });
	return (await answer<{ layouts: ServerLayout[] }>(res)).layouts;
}

export async function saveServerLayout(name: string, query: string, csrf: string): Promise<void> {
	const res = await fetch(appHref('/workspace/layouts'), {
		method: 'POST',
		headers: { 'content-type': 'application/json', 'x-csrf-token': csrf },
		body: JSON.stringify({ name, query })
	});
	await answer(res);
}

export async function deleteServerLayout(name: string, csrf: string): Promise<void> {
	const res = await fetch(appHref(`/workspace/layouts?name=${encodeURIComponent(name)}`), {
		method: 'DELETE',
		headers: { 'x-csrf-token': csrf }
	});
	await answer(res);
}
